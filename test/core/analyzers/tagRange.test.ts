import assert from 'node:assert/strict';
import { findTagRange } from '../../../src/core/edits/tagRange';

const src = (...lines: string[]) => lines.join('\n') + '\n';

describe('analyzers: findTagRange', () => {
  const html = src(
    '<!DOCTYPE html>', // 1
    '<HTML>', // 2
    '<Body>', // 3
    '  <!-- a comment', // 4
    '       <div> not a tag', // 5
    '  -->', // 6
    '  <div', // 7
    '    class="a > b"', // 8
    "    data-x='<p>'", // 9
    '  >', // 10
    '    <img src="x.png">', // 11
    '    <br/>', // 12
    '    <![CDATA[ <span> ]]>', // 13
    '    <?php echo "<em>"; ?>', // 14
    '    <p>Text</P>', // 15
    '  </div>', // 16
    '  <script>', // 17
    '    if (a < b) { document.write("<section>"); }', // 18
    '  </script>', // 19
    '</Body>', // 20
    '</HTML>', // 21
  );
  it('a tag split across lines, with > inside quoted attributes', () => {
    assert.deepEqual(findTagRange(html, 8), { start: 7, end: 16, tag: 'div' });
    assert.deepEqual(findTagRange(html, 10), { start: 7, end: 16, tag: 'div' });
  });
  it('void elements, self-closing tags, CDATA and processing instructions are not pairs', () => {
    assert.deepEqual(findTagRange(html, 11), { start: 7, end: 16, tag: 'div' });
    assert.deepEqual(findTagRange(html, 12), { start: 7, end: 16, tag: 'div' });
    assert.deepEqual(findTagRange(html, 13), { start: 7, end: 16, tag: 'div' });
    assert.deepEqual(findTagRange(html, 14), { start: 7, end: 16, tag: 'div' });
  });
  it('tags in multi-line comments are ignored', () => {
    assert.deepEqual(findTagRange(html, 5), { start: 3, end: 20, tag: 'body' });
  });
  it('names are case-insensitive and reported lowercased; the innermost pair wins', () => {
    assert.deepEqual(findTagRange(html, 15), { start: 15, end: 15, tag: 'p' });
    assert.deepEqual(findTagRange(html, 2), { start: 2, end: 21, tag: 'html' });
  });
  it('script contents are code, not tags', () => {
    assert.deepEqual(findTagRange(html, 18), { start: 17, end: 19, tag: 'script' });
  });
  it('outside every pair gives undefined', () => {
    assert.equal(findTagRange(html, 1), undefined);
    assert.equal(findTagRange(html, 22), undefined);
  });
  it('optional end tags do not break the enclosing pair', () => {
    const t = src('<ul>', '  <li>one', '  <li>two', '</ul>');
    assert.deepEqual(findTagRange(t, 3), { start: 1, end: 4, tag: 'ul' });
  });
  it('Vue templates with expressions containing >', () => {
    const vue = src('<template>', '  <ul>', "    <li v-for=\"x in xs\" :key=\"x\">{{ x > 1 ? 'a' : 'b' }}</li>", '  </ul>', '</template>', '<script setup>', 'const xs = [1, 2]', '</script>');
    assert.deepEqual(findTagRange(vue, 3, 'vue'), { start: 3, end: 3, tag: 'li' });
    assert.deepEqual(findTagRange(vue, 2, 'vue'), { start: 2, end: 4, tag: 'ul' });
    assert.deepEqual(findTagRange(vue, 7, 'vue'), { start: 6, end: 8, tag: 'script' });
  });
  it('XML: no void elements', () => {
    const xml = src('<root>', '  <link>http://x</link>', '  <item', '    id="1"/>', '</root>');
    assert.deepEqual(findTagRange(xml, 2, 'xml'), { start: 2, end: 2, tag: 'link' });
    assert.deepEqual(findTagRange(xml, 4, 'xml'), { start: 1, end: 5, tag: 'root' });
    assert.deepEqual(findTagRange(xml, 2), { start: 1, end: 5, tag: 'root' }, 'HTML rules treat <link> as void');
  });
  it('JSX in TSX: elements are tags, comparisons are not', () => {
    const tsx = src('export function App() {', '  if (a<b && c>d) return null;', '  return (', '    <Layout', '      title="x">', "      <p>Don't</p>", '      <Item', '        id={1}', '      />', '    </Layout>', '  );', '}');
    assert.equal(findTagRange(tsx, 2, 'typescriptreact'), undefined);
    assert.equal(findTagRange('if (a<b && c>d) {\n  go();\n}\n', 2, 'typescript'), undefined);
    assert.deepEqual(findTagRange(tsx, 5, 'typescriptreact'), { start: 4, end: 10, tag: 'layout' });
    assert.deepEqual(findTagRange(tsx, 8, 'typescriptreact'), { start: 7, end: 9, tag: 'item' });
  });
});
