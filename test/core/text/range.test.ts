import { strict as assert } from 'node:assert';
import { parseFileRange, hasFileRange } from '../../../src/core/text/range';
import { ToolError } from '../../../src/core/errors';

function throwsInvalid(input: string, re: RegExp) {
  assert.throws(() => parseFileRange(input), (e: unknown) => e instanceof ToolError && e.code === 'invalid_argument' && re.test(e.message));
}

describe('core/text parseFileRange', () => {
  it('plain path has no range', () => {
    assert.deepEqual(parseFileRange('src/a.ts'), { path: 'src/a.ts', spec: { kind: 'none' } });
  });
  it(':N, :S-E, :ALL', () => {
    assert.deepEqual(parseFileRange('a.go:10'), { path: 'a.go', spec: { kind: 'line', line: 10 } });
    assert.deepEqual(parseFileRange('a.go:0'), { path: 'a.go', spec: { kind: 'line', line: 0 } });
    assert.deepEqual(parseFileRange('a.go:5-15'), { path: 'a.go', spec: { kind: 'span', start: 5, end: 15 } });
    assert.deepEqual(parseFileRange('a.go:ALL'), { path: 'a.go', spec: { kind: 'all' } });
    assert.deepEqual(parseFileRange('a.go:all'), { path: 'a.go', spec: { kind: 'all' } });
  });
  it('cuts at the last colon', () => {
    assert.deepEqual(parseFileRange('dir:x/a.go:3'), { path: 'dir:x/a.go', spec: { kind: 'line', line: 3 } });
  });
  it('a suffix that is not range-like is part of the path', () => {
    assert.deepEqual(parseFileRange('notes:draft.txt'), { path: 'notes:draft.txt', spec: { kind: 'none' } });
  });
  it('Windows drive letters are skipped', () => {
    assert.deepEqual(parseFileRange('C:\\src\\a.go'), { path: 'C:\\src\\a.go', spec: { kind: 'none' } });
    assert.deepEqual(parseFileRange('C:/src/a.go:7-9'), { path: 'C:/src/a.go', spec: { kind: 'span', start: 7, end: 9 } });
    assert.deepEqual(parseFileRange('C:\\a.go:2'), { path: 'C:\\a.go', spec: { kind: 'line', line: 2 } });
  });
  it('file:// URIs and URLs with ports', () => {
    assert.deepEqual(parseFileRange('file:///tmp/a.go:3'), { path: 'file:///tmp/a.go', spec: { kind: 'line', line: 3 } });
    assert.deepEqual(parseFileRange('file:///tmp/a.go'), { path: 'file:///tmp/a.go', spec: { kind: 'none' } });
    assert.deepEqual(parseFileRange('x://host:8080/p'), { path: 'x://host:8080/p', spec: { kind: 'none' } });
    assert.deepEqual(parseFileRange('x://host:8080/p:4-5'), { path: 'x://host:8080/p', spec: { kind: 'span', start: 4, end: 5 } });
    assert.deepEqual(parseFileRange('file://rel/a.go:0'), { path: 'file://rel/a.go', spec: { kind: 'line', line: 0 } });
    assert.deepEqual(parseFileRange('file://a.txt:1'), { path: 'file://a.txt', spec: { kind: 'line', line: 1 } });
    assert.deepEqual(parseFileRange('file://C:/x/a.go'), { path: 'file://C:/x/a.go', spec: { kind: 'none' } });
    assert.deepEqual(parseFileRange('file:///C:/x/a.go:3'), { path: 'file:///C:/x/a.go', spec: { kind: 'line', line: 3 } });
  });
  it('errors: end before start, bad numbers, empty suffix, empty path', () => {
    throwsInvalid('a.go:9-3', /end line \(3\) must be >= start line \(9\)/);
    throwsInvalid('a.go:1O', /invalid line number: "1O"/);
    throwsInvalid('a.go:3-', /invalid end line/);
    throwsInvalid('a.go:-3', /invalid start line/);
    throwsInvalid('a.go:', /missing line number/);
    throwsInvalid(':5', /missing path/);
    throwsInvalid('  ', /empty/);
  });
  it('hasFileRange', () => {
    assert.equal(hasFileRange('a.go:3'), true);
    assert.equal(hasFileRange('a.go:ALL'), true);
    assert.equal(hasFileRange('a.go'), false);
    assert.equal(hasFileRange('a.go:x'), false);
  });
});
