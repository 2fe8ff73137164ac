/**
 * The built CLI's code cache across starts whose Node options differ: V8 rejects a cache made under other flags, so
 * such starts keep a cache each (src/core/files/codeCache.ts nodeOptionsKey) instead of replacing one another's.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeOptionsKey } from '../../src/core/files/codeCache';
import { buildCli } from '../mcp/helpers';
import { verdictProbe } from './cacheVerdicts';

describe('cli: code caches per Node options', function () {
  this.timeout(120000);
  let dir: string;
  before(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'bet-cache-variants-')));
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('nodeOptionsKey: empty for no options; the same options the same key; others another', () => {
    assert.equal(nodeOptionsKey([], undefined), '');
    assert.equal(nodeOptionsKey([], '  '), '');
    const a = nodeOptionsKey([], '--max-old-space-size=8192');
    assert.match(a, /^[0-9a-f]{8}$/);
    assert.equal(nodeOptionsKey([], ' --max-old-space-size=8192 '), a);
    assert.notEqual(nodeOptionsKey(['--max-old-space-size=8192'], undefined), '');
    assert.notEqual(nodeOptionsKey([], '--max-old-space-size=4096'), a);
    assert.notEqual(nodeOptionsKey(['--stack-size=1000'], '--max-old-space-size=8192'), a);
  });

  // as a shell whose NODE_OPTIONS holds a V8 flag and an editor whose does not, starting the CLI in turn
  it('starts with and without a V8 flag in NODE_OPTIONS, in turn: each finds its own cache and V8 accepts it', async () => {
    await buildCli();
    const probe = await verdictProbe(dir, dir);
    const cache = path.join(dir, 'cache');
    const { NODE_OPTIONS: _unused, ...plain } = process.env;
    const flagged = { ...plain, NODE_OPTIONS: '--stack-trace-limit=20' }; // a V8 flag V8 keys its caches to (Node 20 and 24)
    for (const env of [plain, flagged]) await probe.session({ ...env, XDG_CACHE_HOME: cache }); // each writes its cache
    for (let i = 0; i < 2; i++) for (const env of [plain, flagged]) await probe.session({ ...env, XDG_CACHE_HOME: cache });
    // the bundle's in each of the four later starts, and zod's where the session loaded it (at an idle moment or its end)
    const verdicts = await probe.verdicts();
    assert.ok(verdicts.length >= 4, verdicts.join(', '));
    assert.deepEqual(new Set(verdicts), new Set(['accepted']));
    const files = (await fs.readdir(path.join(cache, 'better-edit-tools-mcp', 'code-cache'))).filter((n) => n.startsWith('cli-main-') && n.endsWith('.v8'));
    assert.equal(files.length, 2, files.join(', '));
  });
});
