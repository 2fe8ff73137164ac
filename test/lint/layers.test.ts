/**
 * Each layer rule seen failing once: a tree of planted files, one import against each rule of
 * .dependency-cruiser.cjs and one against the transitive purity rule of .dependency-cruiser.reach.cjs, is cruised
 * with the project's own configs (the real dependency-cruiser CLI, as `npm run lint` runs it). Beside them, imports
 * the rules allow (a port, a type-only import of node/ code, Node code using an implementation) must pass.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.join(__dirname, '../..');
const CLI = path.join(REPO, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CYCLE = ['src/core/cycleA.ts', 'src/core/cycleB.ts'];

/** path → source: each forbidden import names the rule it breaks in its file name. */
const PLANTED: Record<string, string> = {
  // targets, empty
  'src/cli/target.ts': 'export const cli = 1;\n',
  'src/vscode/target.ts': 'export const vscode = 1;\n',
  'src/mcp/target.ts': 'export const mcp = 1;\n',
  'src/core/edits/target.ts': 'export const edits = 1;\n',
  'src/core/context/target.ts': 'export const context = 1;\n',
  'test/target.ts': 'export const test = 1;\n',
  'src/core/files/impl.ts': "import { statSync } from 'node:fs';\nexport const impl = statSync;\n",
  'src/core/text/node/worker.ts': "export interface WorkerPort { run(): void }\nexport const worker = 1;\n",
  // one breach per rule
  'src/core/cycleA.ts': "import { b } from './cycleB';\nexport const a = () => b;\n",
  'src/core/cycleB.ts': "import { a } from './cycleA';\nexport const b = () => a;\n",
  'src/core/coreStaysDown.ts': "import { mcp } from '../mcp/target';\nexport const x = mcp;\n",
  'src/mcp/vscodeOnlyInTheExtension.ts': "import * as vscode from 'vscode';\nexport const x = vscode;\n",
  'src/mcp/mcpBelowHosts.ts': "import { cli } from '../cli/target';\nexport const x = cli;\n",
  'src/cli/hostsApart.ts': "import { vscode } from '../vscode/target';\nexport const x = vscode;\n",
  'src/core/context/contextReadsNotEdits.ts': "import { edits } from '../edits/target';\nexport const x = edits;\n",
  'src/core/read/readBelowEdits.ts': "import { context } from '../context/target';\nexport const x = context;\n",
  'src/srcNotTests.ts': "import { test } from '../test/target';\nexport const x = test;\n",
  'src/core/text/pureCoreNoIo.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
  // a type-only import of an implementation: the ports rule sees it (the reach rule erases types)
  'src/core/edits/pureCoreImportsFilePorts.ts': "import type { impl } from '../files/impl';\nexport type X = typeof impl;\n",
  // pure → pure → node/ at run time: the top module never imports node/ itself
  'src/core/util/pureCoreStaysPure.ts': "import { middle } from './middle';\nexport const x = middle;\n",
  'src/core/util/middle.ts': "import { worker } from '../text/node/worker';\nexport const middle = worker;\n",
  // a port module in files/ is pure code too: it may not reach an implementation
  'src/core/files/ports.ts': "import { impl } from './impl';\nexport const port = impl;\n",
  // allowed: the ports, a type-only import of node/ code, Node code over an implementation
  'src/core/files/fileStore.ts': 'export interface FileStore { read(): void }\n',
  'src/core/history/allowed.ts':
    "import type { FileStore } from '../files/fileStore';\nimport type { WorkerPort } from '../text/node/worker';\n" +
    'export type Both = FileStore & WorkerPort;\n',
  'src/core/history/node/allowed.ts': "import { impl } from '../../files/impl';\nimport { worker } from '../../text/node/worker';\nexport const x = [impl, worker];\n",
};

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  via?: { name: string }[];
}

function cruise(dir: string, config: string): Violation[] {
  const r = spawnSync(process.execPath, [CLI, 'src', 'test', '--config', path.join(REPO, config), '--output-type', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.ok(r.stdout, `dependency-cruiser printed nothing (exit ${r.status}): ${r.stderr}`);
  return (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** `fooBarBaz.ts` → `foo-bar-baz`: the rule a planted file breaks. */
const ruleOf = (file: string) => path.basename(file, '.ts').replace(/[A-Z]/g, (c) => '-' + c.toLowerCase());

describe('layer rules (dependency-cruiser), each seen failing on a planted import', function () {
  this.timeout(120_000);
  let dir: string;
  let layers: Violation[];
  let reach: Violation[];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bet-layers-'));
    for (const [rel, text] of Object.entries(PLANTED)) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    }
    fs.copyFileSync(path.join(REPO, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
    fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'dir'); // resolves `vscode` as in the repo
    layers = cruise(dir, '.dependency-cruiser.cjs');
    reach = cruise(dir, '.dependency-cruiser.reach.cjs');
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the config is CommonJS, read as the CLI reads it
  const main = require(path.join(REPO, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };
  for (const { name } of main.forbidden) {
    it(`${name} fails on its planted import`, () => {
      const hits = layers.filter((v) => v.rule.name === name);
      if (name === 'no-cycles') {
        // reported once, from whichever end of the pair the cruise met first
        assert.ok(hits.length > 0 && hits.every((v) => CYCLE.includes(v.from)), JSON.stringify(hits));
        return;
      }
      const planted = Object.keys(PLANTED).find((f) => ruleOf(f) === name);
      assert.ok(planted, `no planted file for rule ${name}: add one to PLANTED`);
      assert.ok(hits.some((v) => v.from === planted), `${name} did not fire on ${planted}: ${JSON.stringify(hits)}`);
    });
  }

  it('the main rules fire on nothing but the planted breaches (and the port that imports an implementation)', () => {
    const expected = Object.keys(PLANTED).filter((f) => main.forbidden.some((r) => r.name === ruleOf(f)));
    expected.push('src/core/files/ports.ts');
    const from = new Set(layers.filter((v) => v.rule.name !== 'no-cycles').map((v) => v.from));
    assert.deepEqual([...from].sort(), expected.sort());
  });

  it('pure-core-stays-pure fails on a pure module that reaches node/ through another pure module, at run time', () => {
    const top = reach.find((v) => v.from === 'src/core/util/pureCoreStaysPure.ts');
    assert.ok(top, JSON.stringify(reach));
    assert.equal(top.rule.name, 'pure-core-stays-pure');
    assert.equal(top.to, 'src/core/text/node/worker.ts');
    assert.deepEqual(top.via?.map((v) => v.name), ['src/core/util/middle.ts', 'src/core/text/node/worker.ts']);
  });

  it('pure-core-stays-pure: a port module in files/ is pure too, and type-only imports and Node code pass', () => {
    assert.ok(reach.some((v) => v.from === 'src/core/files/ports.ts' && v.to === 'src/core/files/impl.ts'), JSON.stringify(reach));
    const from = [...new Set(reach.map((v) => v.from))].sort();
    assert.deepEqual(from, ['src/core/files/ports.ts', 'src/core/util/middle.ts', 'src/core/util/pureCoreStaysPure.ts']);
  });
});
