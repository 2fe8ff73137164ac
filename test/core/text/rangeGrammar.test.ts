/**
 * One grammar (`path`, `path:N`, `path:S-E`, `path:ALL`), read the same way by every module that reads it: the edit
 * tools (text/range.ts), a chip's location (chips/content.ts), a chip preview's file name (vscode/chipPreviewName.ts)
 * and ChatMemory's file references (memory/references.ts).
 */
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { parseFileRange, pathOfFileRange, type FileRange } from '../../../src/core/text/range';
import { locationOfArgs } from '../../../src/core/chips/content';
import { formatReference, parseFileReference } from '../../../src/core/memory/references';
import { chipTargetPath } from '../../../src/vscode/chipPreviewName';

/** What the edit tools make of `input`, or undefined when they refuse it. */
function editToolsRead(input: string): FileRange | undefined {
  try {
    return parseFileRange(input);
  } catch {
    return undefined;
  }
}

/** The reference ChatMemory should record for `input`: the edit tools' reading, when it has a range. */
function expectedReference(input: string) {
  const fr = editToolsRead(input);
  if (!fr || fr.spec.kind === 'none') return undefined;
  const s = fr.spec;
  return s.kind === 'all' ? { path: fr.path, all: true } : s.kind === 'line' ? { path: fr.path, start: s.line, end: s.line } : { path: fr.path, start: s.start, end: s.end };
}

/**
 * The location a chip of a failed call should record for `input`: the edit tools' reading of an absolute path (the
 * path alone when they refuse the range).
 */
function expectedLocation(input: string) {
  const fr = editToolsRead(input) ?? { path: pathOfFileRange(input), spec: { kind: 'none' as const } };
  if (!fr.path.startsWith('/')) return {};
  const s = fr.spec;
  if (s.kind === 'line') return { file: fr.path, range: { start: s.line, end: s.line } };
  if (s.kind === 'span') return { file: fr.path, range: { start: s.start, end: s.end } };
  return { file: fr.path };
}

const CASES = [
  'a.ts:all',
  'a.ts:All',
  '/ws/a.ts:all',
  '/ws/a.ts:ALL',
  '/ws/a.ts:7',
  '/ws/a.ts:5-15',
  '  /ws/a.ts:5-15  ',
  '/ws/a.ts:9-3',
  '/ws/notes:draft.txt',
  '/ws/dir:x/a.go:3',
  'x://host:8080/p',
  'C:\\src\\a.go:2',
  'src/a.ts:0',
  'src/a.ts:5-10',
];

describe('core/text one range grammar for every reader', () => {
  for (const input of CASES) {
    it(`ChatMemory's references read ${JSON.stringify(input)} as the edit tools do`, () => {
      assert.deepEqual(parseFileReference(input), expectedReference(input));
    });
    it(`a chip's location reads ${JSON.stringify(input)} as the edit tools do`, () => {
      assert.deepEqual(locationOfArgs({ file: input }), expectedLocation(input));
    });
  }

  it("a chip preview's file is the edit tools' path (a range the tools refuse still names its file)", () => {
    assert.equal(chipTargetPath({ args: { file: 'src/a.ts:all' } }), 'src/a.ts');
    assert.equal(chipTargetPath({ args: { file: 'x://host:8080/p' } }), 'x://host:8080/p');
    assert.equal(chipTargetPath({ args: { file: '/ws/a.ts:9-3' } }), '/ws/a.ts');
    assert.equal(chipTargetPath({ args: { to: 'file:///ws/lib/a.go:10' } }), '/ws/lib/a.go');
  });

  it('a failed call whose range the tools refuse keeps its file on the chip', () => {
    assert.deepEqual(locationOfArgs({ file: '/ws/a.ts:9-3' }), { file: '/ws/a.ts' });
  });

  it('every formatted reference parses back to itself, and as the edit tools read it (property)', () => {
    const segment = fc.stringMatching(/^[a-zA-Z0-9_.-]{1,8}$/).filter((s) => s !== '.' && s !== '..');
    const ref = fc.oneof(
      fc.record({ path: segment, all: fc.constant(true as const) }),
      fc.tuple(segment, fc.nat(10_000), fc.nat(50)).map(([path, start, len]) => ({ path, start, end: start + len })),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), ref, (dirs, r) => {
        const withDir = { ...r, path: `${dirs.join('/')}/${r.path}` };
        const text = formatReference(withDir);
        assert.deepEqual(parseFileReference(text), withDir);
        assert.deepEqual(parseFileReference(text), expectedReference(text));
      }),
      { numRuns: 300 },
    );
  });
});
