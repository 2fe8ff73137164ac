/**
 * The CLI's cap on the young generation: a real Node process keeping what it allocates (as the repository map does)
 * grows V8's young generation to V8's maximum without the cap and stops near the cap with it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { youngGenerationMbFrom, YOUNG_GENERATION_MB } from '../../src/cli/youngGeneration';
import { buildCli, CLI } from '../mcp/helpers';
import { verdictProbe } from './cacheVerdicts';

const run = promisify(execFile);
const MODULE = path.resolve(__dirname, '../../src/cli/youngGeneration.ts');

/**
 * The young generation's size (MB) after each of 60 rounds of a child process that keeps ~60 MB of small objects,
 * capped at `mb`. V8 may stretch the space for a moment during a GC (seen: 4 → 13 MB and back in the next round), so
 * the assertions read its size most of the time (the median), not its largest.
 */
async function youngGenerationSizes(dir: string, mb: number): Promise<number[]> {
  const script = path.join(dir, `keep-${mb}.cjs`);
  await fs.writeFile(
    script,
    `const { capYoungGeneration, youngGenerationBytes } = require(${JSON.stringify(MODULE)});
capYoungGeneration(${mb});
const kept = [];
const sizes = [];
(async () => {
  for (let round = 0; round < 60; round++) {
    for (let i = 0; i < 20000; i++) kept.push({ n: i, s: 'name' + round + '_' + i });
    await new Promise((r) => setImmediate(r)); // a turn of the loop, as the sliced index makes: the GC entries arrive
    sizes.push(youngGenerationBytes() / 1048576);
  }
  console.log(sizes.join(' '));
})();
`,
  );
  const { stdout } = await run(process.execPath, ['--require', 'tsx/cjs', script], { cwd: path.resolve(__dirname, '../..') });
  return stdout.trim().split(' ').map(Number);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

describe('cli: the young generation is capped', function () {
  this.timeout(120000);
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'bet-young-'));
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  it('grows past 8 MB without the cap, and stays within one growth step of a 4 MB cap with it', async () => {
    const free = await youngGenerationSizes(dir, 0);
    const capped = await youngGenerationSizes(dir, 4);
    assert.ok(median(free) > 8 && free.at(-1)! > 8, `without the cap: ${free.join(' ')} MB`);
    assert.ok(median(capped) <= 8 && capped.at(-1)! <= 8, `with a 4 MB cap: ${capped.join(' ')} MB`);
  });

  it('BET_YOUNG_GENERATION_MB: a whole number of MB, 0 for V8 own sizing; anything else warns and keeps the default', () => {
    const warnings: string[] = [];
    const warn = (m: string) => warnings.push(m);
    assert.equal(youngGenerationMbFrom({}, warn), YOUNG_GENERATION_MB);
    assert.equal(youngGenerationMbFrom({ BET_YOUNG_GENERATION_MB: '0' }, warn), 0);
    assert.equal(youngGenerationMbFrom({ BET_YOUNG_GENERATION_MB: ' 32 ' }, warn), 32);
    assert.deepEqual(warnings, []);
    for (const bad of ['-1', '1.5', 'lots', '999999']) assert.equal(youngGenerationMbFrom({ BET_YOUNG_GENERATION_MB: bad }, warn), YOUNG_GENERATION_MB);
    assert.equal(warnings.length, 4);
    assert.match(warnings[0]!, /BET_YOUNG_GENERATION_MB="-1" is not a whole number/);
  });

  it('the built CLI reads the setting (its warning on stderr) and still serves', async () => {
    await buildCli();
    const child = execFile(process.execPath, [CLI, '--root', dir], { env: { ...process.env, XDG_CACHE_HOME: path.join(dir, 'cache'), BET_YOUNG_GENERATION_MB: 'lots' } });
    let err = '';
    let out = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => (out += d));
    child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n');
    child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }) + '\n');
    const deadline = Date.now() + 30000;
    while (!out.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin!.end();
    await new Promise((r) => child.once('exit', r));
    assert.match(out, /"id":2/);
    assert.match(err, /BET_YOUNG_GENERATION_MB="lots" is not a whole number of MB/);
  });

  // V8 stamps a code cache with a hash of its flags: the cap's flag, changed before the cache was saved, made every
  // later start reject it and compile the whole bundle again (seen on Node 24: ~35 ms of every start, for days)
  // and the bundle's zod (dist/vendor/zod.js), which loads at an idle moment, with the cap holding: V8 checks the
  // flags when it reads a cache too
  it('the built CLI with the cap holding saves code caches that its next start accepts: the bundle\'s and zod\'s', async () => {
    await buildCli();
    const probe = await verdictProbe(dir, dir);
    const env = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'verdict-cache'), BET_YOUNG_GENERATION_MB: '1' };
    // no cache yet: compiled, and saved at exit with the cap holding (1 MB: from the start); zod loads at idle
    await probe.session(env, 1500);
    await probe.session(env, 1500);
    await probe.session(env, 1500);
    const verdicts = await probe.verdicts();
    assert.equal(verdicts.length, 4, `the bundle's and zod's in each later start: ${verdicts.join(', ')}`);
    assert.deepEqual(new Set(verdicts), new Set(['accepted']));
  });
});
