/**
 * `better-edit-tools recap --root DIR`: prints the latest chat-memory session's recap of that workspace
 * (pinned constraints, last edits, files touched, summary) within a token budget, for a host hook that puts
 * it back into the agent's context after a compaction (Claude Code: SessionStart with matcher "compact").
 * Prints nothing when the workspace has no saved session. Reads only; never writes.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultChipDir, defaultMemoryDir } from '../core/files/statePaths';
import { readLatestSession } from '../core/memory/node/latestSession';
import { readTrail, recallFileName } from '../core/memory/node/recallStore';
import { DEFAULT_SESSION_RECAP_TOKENS, MIN_SESSION_RECAP_TOKENS, renderSessionRecap } from '../core/memory/sessionRecap';
import { getTokenizer } from '../core/memory/node/tokenizer';
import { defaultHistoryDir } from '../mcp/services';
import { openSteps, readKnownEdits, readLandedEdits } from './recapHistory';
import { readUndoneEdits } from './recapUndone';
import { resolveRoots } from './roots';
import { WORKSPACE_OPTIONS } from './workspaceOptions';
import { intOption } from './args';

/** A recap goes into the agent's context after a compaction: more than this would refill what was compacted. */
export const MAX_SESSION_RECAP_TOKENS = 100_000;

export const RECAP_USAGE = `Usage: better-edit-tools recap [--root DIR]... [--memory-dir DIR] [--history-dir DIR] [--budget N] [--session ID]

Prints the recap of the workspace's most recent chat-memory session: pinned constraints, its edit calls (landed,
refused, unknown), the be-trx steps still open, the files its edits changed, edits other sessions landed (from
the be-trx history and its landed-edit log, which a commit keeps), the summary of what left the window, with the ids be-memory recall gives back in full.
At most --budget tokens (default ${DEFAULT_SESSION_RECAP_TOKENS}, from ${MIN_SESSION_RECAP_TOKENS} to ${MAX_SESSION_RECAP_TOKENS}). Nothing is printed when there is no session.
--root and --memory-dir select the directory exactly as the server does. Under the Copilot CLI (COPILOT_CLI set),
without --root: the project in COPILOT_PROJECT_DIR, printed as JSON {"additionalContext": "..."}, what it reads.`;

export interface RecapIo {
  env: Record<string, string | undefined>;
  cwd: string;
  out(text: string): void;
  err(text: string): void;
}

/** Returns the exit code. */
export async function runRecap(argv: string[], io: RecapIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        ...WORKSPACE_OPTIONS,
        budget: { type: 'string' },
        session: { type: 'string' },
        'history-dir': { type: 'string' },
      },
    }));
  } catch (e) {
    io.err(`${(e as Error).message}\n${RECAP_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.out(`${RECAP_USAGE}\n`);
    return 0;
  }
  let budget = DEFAULT_SESSION_RECAP_TOKENS;
  try {
    if (values.budget !== undefined) budget = intOption('--budget', values.budget, MIN_SESSION_RECAP_TOKENS, MAX_SESSION_RECAP_TOKENS, 'tokens');
  } catch (e) {
    io.err(`${(e as Error).message}\n`);
    return 2;
  }
  let memoryDir: string;
  // The be-trx history says which edits landed and by whom; it needs the roots (its records name the workspace).
  let history: { dir: string; roots: string[] } | undefined;
  try {
    const cacheBase = defaultChipDir(io.env, process.platform, os.homedir());
    const needRoots = !values['memory-dir'] || values.root !== undefined;
    const roots = needRoots ? resolveRoots({ roots: values.root ?? [], allowRootDir: values['allow-root-dir'] ?? false }, projectDir(io, values.root)) : undefined;
    memoryDir = values['memory-dir'] ? path.resolve(io.cwd, values['memory-dir']) : defaultMemoryDir(cacheBase, roots ?? []);
    if (roots) history = { dir: values['history-dir'] ? path.resolve(io.cwd, values['history-dir']) : defaultHistoryDir(cacheBase, roots), roots };
  } catch (e) {
    io.err(`${(e as Error).message}\n`);
    return 2;
  }
  const session = await readLatestSession(memoryDir, { tokenizerFor: getTokenizer }, { sessionId: values.session, onWarning: (m) => io.err(`${m}\n`) });
  if (!session) {
    io.err(`no chat-memory session saved in ${memoryDir}\n`);
    return 0;
  }
  const tokenizer = getTokenizer(session.memory.options.encoding);
  const trail = await readTrail(path.join(memoryDir, 'recall', recallFileName(session.sessionId)));
  const landed = history ? await readLandedEdits(history.dir, history.roots) : [];
  const known = history ? await readKnownEdits(history.dir, history.roots, landed) : [];
  const undone = history ? await readUndoneEdits(history.dir, history.roots) : undefined;
  const client = known.find((e) => e.session === session.sessionId && e.client !== undefined)?.client;
  const otherEdits = known.filter((e) => e.session !== session.sessionId);
  const recap = renderSessionRecap(session.memory, {
    sessionId: session.sessionId,
    lastActivity: session.lastActivity,
    budgetTokens: budget,
    trail,
    ...(client !== undefined ? { client } : {}),
    otherEdits,
    ...(history ? { openSteps: openSteps(landed) } : {}),
    ...(undone ? { undone, kept: known.filter((e) => e.session === session.sessionId) } : {}),
    count: (t) => tokenizer.count(t),
  });
  io.out(io.env.COPILOT_CLI !== undefined ? `${JSON.stringify({ additionalContext: recap })}\n` : recap);
  return 0;
}

/**
 * The folder whose workspace a recap without --root reads. The Copilot CLI (it sets COPILOT_CLI) runs a plugin's
 * hook in the plugin folder with the project in COPILOT_PROJECT_DIR, and takes only a JSON `additionalContext`
 * from a hook's output into the context (test/packaging/copilotCli.test.ts runs a session); other hosts run it
 * in the project.
 */
function projectDir(io: RecapIo, roots: string[] | undefined): string {
  const project = io.env.COPILOT_CLI !== undefined ? io.env.COPILOT_PROJECT_DIR : undefined;
  return roots === undefined && project && path.isAbsolute(project) ? project : io.cwd;
}
