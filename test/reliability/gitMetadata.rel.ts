/**
 * Git metadata protected by what it is: every way found to plant a command that the next `git status` runs,
 * tried through the real stdio server (dist/cli.js, SDK client) with be-write, be-apply, be-insert and be-replace.
 * Each attack plants `core.fsmonitor = touch MARKER`; then real `git status` runs in every folder
 * involved, as the user who owns the files (so git's safe.directory check never applies, and no `safe.directory`
 * override is given), with no global or system config. The same attacks run once more against a server started
 * with `--allow-write '**'` (the user's opt-in): there the markers appear, which shows the attacks are real and that
 * what stops them is the server, not git.
 *
 *   npm run test:reliability -- --grep "git metadata"
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stdioClient, tmpWorkspace, type Connected, type Workspace } from '../mcp/helpers';
import { figure } from './figures';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

type Step = [tool: string, args: Record<string, unknown>];
interface Attack {
  name: string;
  /** folders (relative to the root) where git status is run afterwards */
  gitIn: string[];
  /** prepared on disk before the server acts (what already is in the workspace) */
  setup?: (root: string) => void;
  steps: (m: string) => Step[];
}

const HEAD = 'ref: refs/heads/main\n';
/** core.worktree makes a bare-looking directory a repository with a worktree, which git status (and fsmonitor) needs */
const cfg = (marker: string, worktree = '..') => `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${worktree}\n\tfsmonitor = "touch '${marker}'; false"\n`;
const write = (file: string, content: string): Step => ['be-write', { file, content }];
const git = (root: string, ...args: string[]) => execFileSync('git', ['-C', root, ...args], { stdio: 'ignore', env: gitEnv(root) });

function gitEnv(root: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: path.dirname(root),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    // discovery stops at the workspace's parent: only what the server wrote can be found
    GIT_CEILING_DIRECTORIES: path.dirname(root),
  };
}

const ATTACKS: Attack[] = [
  {
    name: 'embedded bare repo, config first, HEAD last (be-write)',
    gitIn: ['a1'],
    steps: (m) => [write('a1/config', cfg(m)), write('a1/objects/info/packs', ''), write('a1/refs/heads/main', ''), write('a1/HEAD', HEAD)],
  },
  {
    name: 'embedded bare repo, HEAD first (be-write)',
    gitIn: ['a2'],
    steps: (m) => [write('a2/HEAD', HEAD), write('a2/objects/x', ''), write('a2/refs/x', ''), write('a2/config', cfg(m))],
  },
  {
    name: 'embedded bare repo in one be-apply batch',
    gitIn: ['a3'],
    steps: (m) => [['be-apply', { edits: [
      { file: 'a3/config', content: cfg(m) }, { file: 'a3/objects/x', content: 'x' }, { file: 'a3/refs/x', content: 'x' }, { file: 'a3/HEAD', content: HEAD },
    ] }]],
  },
  {
    name: 'embedded repo with HEAD spelled "head" (folding file systems)',
    gitIn: ['a4'],
    steps: (m) => [write('a4/config', cfg(m)), write('a4/objects/x', ''), write('a4/refs/x', ''), write('a4/head', HEAD), write('a4/HEAD', HEAD)],
  },
  {
    name: '.git file with gitdir: ../meta',
    gitIn: ['b1/wt'],
    steps: (m) => [write('b1/meta/config', cfg(m, '../wt')), write('b1/meta/objects/x', ''), write('b1/meta/refs/x', ''), write('b1/meta/HEAD', HEAD), write('b1/wt/.git', 'gitdir: ../meta\n')],
  },
  {
    name: '.git file to a commondir pair (worktree-style metadata)',
    gitIn: ['b2/wt'],
    steps: (m) => [
      write('b2/common/config', cfg(m, '../wt')), write('b2/common/objects/x', ''), write('b2/common/refs/x', ''),
      write('b2/meta/commondir', '../common\n'), write('b2/meta/HEAD', HEAD), write('b2/wt/.git', 'gitdir: ../meta\n'),
    ],
  },
  {
    name: 'a .git folder written whole, and its other spellings',
    gitIn: ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'],
    steps: (m) => {
      const forms = ['.git', '.GIT', '.git.', '.git ', 'GIT~1', '.g\u200cit', '.git::$INDEX_ALLOCATION'];
      return forms.flatMap((f, i) => [write(`c${i + 1}/${f}/HEAD`, HEAD), write(`c${i + 1}/${f}/objects/x`, ''), write(`c${i + 1}/${f}/refs/x`, ''), write(`c${i + 1}/${f}/config`, cfg(m))]);
    },
  },
  {
    name: 'an existing bare repository (not named .git)',
    gitIn: ['d1/bare.git'],
    setup: (root) => git(root, 'init', '-q', '--bare', path.join(root, 'd1', 'bare.git')),
    steps: (m) => [write('d1/bare.git/config', cfg(m)), ['be-insert', { file: 'd1/bare.git/config:0', content: `[core]\n\tfsmonitor = "touch '${m}'; false"` }]],
  },
  {
    name: 'an existing separate git dir behind a .git file',
    gitIn: ['d2/work'],
    setup: (root) => git(root, 'init', '-q', '--separate-git-dir', path.join(root, 'd2', 'sep'), path.join(root, 'd2', 'work')),
    steps: (m) => [write('d2/sep/config', cfg(m, '../work')), ['be-replace', { file: 'd2/sep/config:1', content: `[core]\n\tfsmonitor = "touch '${m}'; false"` }], write('d2/work/.git', 'gitdir: ../sep\n')],
  },
  {
    name: 'the workspace repository itself',
    gitIn: ['.'],
    steps: (m) => [write('.git/config', cfg(m, '..')), ['be-insert', { file: '.git/config:0', content: `[core]\n\tfsmonitor = "touch '${m}'; false"` }]],
  },
];

interface Outcome {
  calls: number;
  refused: number;
  markers: number;
  attacksThatRan: number;
  statusRuns: number;
  /** per attack: refused calls of all, and whether its command ran */
  perAttack: string[];
}

async function runAttacks(ws: Workspace, c: Connected, markerDir: string): Promise<Outcome> {
  const out: Outcome = { calls: 0, refused: 0, markers: 0, attacksThatRan: 0, statusRuns: 0, perAttack: [] };
  for (const [i, a] of ATTACKS.entries()) {
    a.setup?.(ws.root);
    const marker = path.join(markerDir, `attack-${i}`);
    const steps = a.steps(marker);
    let refused = 0;
    const errors: string[] = [];
    for (const [tool, args] of steps) {
      const r = (await c.client.callTool({ name: tool, arguments: args })) as CallToolResult;
      out.calls++;
      if (r.isError) {
        refused++;
        const t = r.content.map((x) => (x.type === 'text' ? x.text : '')).join('');
        if (!/git directory|\.git folder|git config/.test(t)) errors.push(`${tool}: ${t.slice(0, 160)}`);
      }
    }
    out.refused += refused;
    for (const dir of a.gitIn) {
      try {
        execFileSync('git', ['-C', path.join(ws.root, dir), 'status', '--porcelain'], { stdio: 'ignore', env: gitEnv(ws.root), timeout: 20000 });
      } catch {
        // not a repository, or a broken fsmonitor: what counts is whether the command ran
      }
      out.statusRuns++;
    }
    const ran = fs.existsSync(marker);
    if (ran) out.attacksThatRan++;
    out.perAttack.push(`${a.name}: ${refused}/${steps.length} calls refused, command ${ran ? 'RAN' : 'did not run'}${errors.length ? `; other errors: ${errors.join(' | ')}` : ''}`);
  }
  out.markers = fs.readdirSync(markerDir).length;
  return out;
}

describe('reliability: git metadata protected by what it is (stdio server, real git)', function () {
  this.timeout(240000);

  async function run(extra: string[]): Promise<Outcome> {
    const ws = await tmpWorkspace();
    let c: Connected | undefined;
    try {
      git(ws.root, 'init', '-q', ws.root);
      const markerDir = path.join(ws.cache, 'markers');
      fs.mkdirSync(markerDir);
      c = await stdioClient(ws, extra);
      return await runAttacks(ws, c, markerDir);
    } finally {
      await c?.close();
      await ws.dispose();
    }
  }

  it('0 code-execution paths among every attack form; with the opt-in the same attacks do run', async () => {
    const guarded = await run([]);
    const opened = await run(['--allow-write', '**']);
    for (const line of guarded.perAttack) console.log(`      guarded: ${line}`);
    for (const line of opened.perAttack) console.log(`      --allow-write **: ${line}`);
    figure('git attack forms tried', ATTACKS.length, 'all of them');
    figure('git attack tool calls (refused)', `${guarded.calls} (${guarded.refused})`, 'each attack refused at some step');
    figure('git status runs after the attacks', guarded.statusRuns, `${guarded.statusRuns}`);
    figure('git code-execution paths (markers)', guarded.markers, '0');
    figure('git attacks that run with --allow-write **', `${opened.attacksThatRan} of ${ATTACKS.length}`, 'all: the attacks are real');
    assert.equal(guarded.markers, 0, 'a planted command ran');
    for (const line of guarded.perAttack) assert.match(line, /: [1-9][0-9]*\/[0-9]+ calls refused, command did not run$/, line);
    // the control: every attack works when the user opts in, so git itself (safe.directory etc.) stops none of them
    assert.equal(opened.attacksThatRan, ATTACKS.length, opened.perAttack.join('\n'));
    assert.equal(opened.refused, 0);
  });
});
