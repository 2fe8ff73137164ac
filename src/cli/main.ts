/**
 * stdio entry for MCP clients (Claude Code, Cursor, Claude Desktop): `better-edit-tools --root DIR`.
 * stdout is the protocol; everything else goes to stderr.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { ServerDeps } from '../mcp/server';
import { version as SERVER_VERSION } from '../../package.json';
import { replyLimitFor, type ReplyLimitSource } from '../mcp/hostProfiles';
import { createServices, defaultHistoryDir, userChipKeyFile } from '../mcp/services';
import { takeFront } from '../mcp/fastStart';
import { startLean } from '../mcp/leanStart';
import { toolListing } from '../mcp/listing';
import { createToolCaller, notifyObservers } from '../mcp/callPipeline';
import { warmEditReport } from '../core/edits/warmUp';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toolTable } from '../mcp/tools/index';
import { defaultChipDir, defaultMemoryDir, stateInsideRoots, workspaceChipDir } from '../core/files/statePaths';
import { defaultLockDir } from '../core/files/lockDir';
import { isInside } from '../core/files/ports';
import { encodingRulesResolver, parseEncodingRule } from '../core/files/encodingRules';
import { parseCli, USAGE, type CliOptions } from './args';
import { awaitsClientRoots, resolveRoots } from './roots';
import { switchingDeps, switchingObserver } from './switching';
import { MemoryRegistry } from '../core/memory/node/registry';
import { getTokenizer, preloadTokenizer } from '../core/memory/node/tokenizer';
import { memoryObserver } from '../mcp/memoryObserver';
import { idleGate, type IdleGate } from '../mcp/idleGate';
import { runRecap } from './recap';
import { RecallStore } from '../core/memory/node/recallStore';
import { readFixedToken } from './token';
import { cacheRefresher } from './cacheRefresh';
import { refreshCodeCache } from '../core/files/codeCache';
import { capYoungGeneration, youngGenerationMbFrom } from './youngGeneration';

const log = (message: string) => process.stderr.write(`[better-edit-tools] ${message}\n`);

/** A record waits for the background load and an idle moment at most this long (a busy server still records). */
const RECORD_WAIT_MS = 3000;
/** Background work starts only this long after the last call: not between the calls of one burst. */
const BACKGROUND_QUIET_MS = 150;

function atMost(ms: number, p: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    void p.finally(() => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * The tokenizer's ranks load in the background once the server has started (`started()`), in slices taken only while
 * no call is in flight (one gate per process, whatever roots are composed); a call that counts asks for them itself
 * (and the load then goes on regardless); the memory records wait for it.
 */
let background: { idle: IdleGate; ranks: Promise<unknown>; started: () => void } | undefined;
function backgroundRanks(): { idle: IdleGate; ranks: Promise<unknown>; started: () => void } {
  if (!background) {
    const idle = idleGate({ quietMs: BACKGROUND_QUIET_MS });
    // Held before the load asks for its first idle moment: the start-up counts as a call in flight, so the ranks
    // file's read and parse (~20 ms) never run between the first calls (they did, the gate being open at that instant).
    const started = idle.hold();
    background = { idle, started, ranks: preloadTokenizer(() => idle.whenIdle()).catch((e: unknown) => log(`tokenizer: ${e instanceof Error ? e.message : String(e)}`)) };
  }
  return background;
}

/**
 * One step of the warm-up (the tools' schemas, the edit report's steps), run once in memory so no first call runs
 * it cold; each step in its own idle moment (the edit report's alone is ~30 ms of CPU on a cold start).
 */
function warmStep(step: () => unknown): void {
  try {
    step();
  } catch (e) {
    log(`warm-up: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Saves the bundle's code cache again after the first calls, at idle moments (cacheRefresh.ts). */
const refresher = () => cacheRefresher(() => backgroundRanks().idle.whenIdle(), refreshCodeCache);

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'recap') {
    process.exitCode = await runRecap(argv.slice(1), { env: process.env, cwd: process.cwd(), out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
    return;
  }
  let opts: CliOptions;
  try {
    opts = parseCli(argv, process.env);
  } catch (e) {
    log(`${(e as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (opts.help) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  if (opts.version) {
    process.stdout.write(`better-edit-tools ${SERVER_VERSION}\n`);
    return;
  }
  capYoungGeneration(youngGenerationMbFrom(process.env, log));

  // An Agent Plugins host starts the server in the plugin folder: the project then comes from the client's MCP roots
  // (stdio only; clientRoots.ts). Otherwise the roots are --root or the current directory, known now.
  const fromClient = !opts.http && awaitsClientRoots(opts, process.cwd(), process.env.PLUGIN_ROOT);
  let roots: string[] = [];
  if (!fromClient) {
    try {
      roots = resolveRoots(opts, process.cwd(), process.env.PLUGIN_ROOT);
    } catch (e) {
      log((e as Error).message);
      process.exitCode = 2;
      return;
    }
    if (roots.some((r) => path.parse(r).root === r)) {
      log(`WARNING: a root is the file system root (${roots.join(', ')}): the tools can edit any file this user can.`);
    }
  }

  // --http with a fixed token: checked before anything is written, so a bad file costs nothing
  let fixedToken: Awaited<ReturnType<typeof readFixedToken>>;
  try {
    fixedToken = opts.http ? await readFixedToken(opts.tokenFile, process.env) : undefined;
  } catch (e) {
    log((e as Error).message);
    process.exitCode = 2;
    return;
  }
  const tools = opts.memory ? toolTable : toolTable.filter((t) => t.name !== 'be-memory');
  // every reply sized to the client that asked (its initialize clientInfo.name), or to --reply-max-chars
  const replyLimit: ReplyLimitSource = (client) => replyLimitFor(client, { override: opts.replyMaxChars });

  if (opts.http) {
    const c = await compose(opts, roots);
    const { deps, memory, recorder } = c;
    backgroundRanks().started();
    const observers = [backgroundRanks().idle, refresher(), ...(recorder ? [recorder] : [])];
    // Loaded only here: the HTTP stack (hono, undici globals) costs the stdio start ~10 ms for nothing.
    const [{ startHttpHost }, { createServer }] = await Promise.all([import('../mcp/httpHost'), import('../mcp/server')]);
    const host = await startHttpHost({
      port: opts.port ?? 0,
      token: fixedToken?.token,
      sessionIdleMs: opts.sessionIdleMs,
      createServerForSession: (sessionId) =>
        createServer(deps, { sessionId, noPrefix: opts.noPrefix, lang: opts.lang, reply: opts.reply, replyLimit, log, observers, tools }),
      // an ended session's memory goes with it (after its last records landed); on shutdown it is kept
      onSessionClosed: (sessionId, reason) => {
        if (reason !== 'shutdown' && memory) void recorder?.settled().then(() => memory.delete(sessionId));
      },
      log,
    });
    log(`HTTP: ${host.url}`);
    // a fixed token is not echoed: it lives in a file or the environment the user already has
    log(fixedToken ? `token: the one from ${fixedToken.source}` : `token: ${host.token}`);
    const stop = () => void host.close().then(c.closeMemory).then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }

  // The server answers from the start: tools/list needs no project, and the workspace requests (tools/call,
  // resources/read) wait while the services compose (recovery, the chip key, history: file system round trips that
  // overlap with the client's initialize and tools/list this way); the chips and the saved memory sessions are read at
  // the first quiet moment, since no first call needs them.
  // The start-up counts as a call in flight: no background slice takes turns with it.
  const starting = backgroundRanks().started;
  let current: Composed | undefined;
  const deps = switchingDeps(() => current?.deps);
  const sessionId = `stdio-${randomUUID()}`;
  const observers = [backgroundRanks().idle, refresher(), switchingObserver(() => current?.recorder)];
  const callerOptions = { sessionId, noPrefix: opts.noPrefix, lang: opts.lang, reply: opts.reply, replyLimit, log, observers, tools };
  // one caller for the session, whichever serves it (its reply pages live there)
  const caller = createToolCaller(deps, callerOptions);
  // started by the loader (dist/cli.js), which may have answered `initialize` already
  const front = takeFront();
  let composing: Promise<unknown> = Promise.resolve();
  let composed = false;
  const exitAfterComposing = () => void composing.then(() => Promise.allSettled([current?.close()])).finally(() => process.exit(0));

  /** The SDK server on `input` (loaded here: the lean start answers the first calls without it). */
  const serveWithSdk = async (input: Readable, output: Writable) => {
    const [{ connectDualEra, createServer }, { LineStdioServerTransport }, { followClientRoots, GatedTransport }] = await Promise.all([
      import('../mcp/server'),
      import('../mcp/stdio'),
      import('./clientRoots'),
    ]);
    const server = createServer(deps, { ...callerOptions, caller });
    const gate = new GatedTransport(new LineStdioServerTransport(input, output, { log }));
    if (fromClient) {
      followClientRoots(server, gate, {
        log,
        allowRootDir: opts.allowRootDir,
        compose: async (dirs) => {
          const old = current;
          current = await compose(opts, dirs);
          await old?.close();
        },
      });
    } else if (composed) {
      gate.open();
    } else {
      void composing.then(() => gate.open());
    }
    server.onerror = (e) => log(`protocol error: ${e.message}`);
    const previousOnClose = server.onclose;
    server.onclose = () => {
      previousOnClose?.();
      // a session that ends while the services compose lets them finish (a recovery under way) and closes them
      exitAfterComposing();
    };
    await connectDualEra(server, gate);
  };

  if (fromClient) {
    starting();
    log(`v${SERVER_VERSION} started in the plugin folder (${process.cwd()}) with no --root: the project folders come from the client's MCP roots`);
  } else {
    composing = compose(opts, roots).then(
      (c) => {
        current = c;
        composed = true;
        starting();
      },
      (e: unknown) => {
        log(`fatal: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
        process.exit(1);
      },
    );
  }
  // (a loader of another build has no `answered`: the SDK server serves, as before)
  if (!front || typeof front.answered !== 'function' || fromClient || process.env.BET_NO_LEAN_START === '1') {
    return serveWithSdk(front?.input ?? process.stdin, front?.output ?? process.stdout);
  }
  let listed: Tool[] | undefined;
  const lean = startLean({
    input: front.input,
    frontAnswered: front.answered,
    write: (line) => void process.stdout.write(line),
    caller,
    listing: () => (listed ??= tools.map((t) => toolListing(t, caller.listedName(t), opts.lang ?? 'en'))),
    ready: composing,
    handOver: (input) =>
      void serveWithSdk(input, front.output).catch((e: unknown) => {
        log(`fatal: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
        process.exit(1);
      }),
    onEnd: () => {
      notifyObservers(observers, log, (o) => o.onSessionClosed?.(sessionId));
      exitAfterComposing();
    },
  });
  // at the first quiet moment: the first edit's CPU-bound steps run once on a made-up file (warmUp.ts), the outline
  // workers start, then the SDK server takes over (or at the first request the lean start leaves to it)
  const whenIdle = () => backgroundRanks().idle.whenIdle();
  void composing
    .then(whenIdle)
    .then(() => warmStep(() => caller.warm()))
    .then(whenIdle)
    .then(() => warmStep(warmEditReport))
    .then(whenIdle)
    // the outline workers (~0.1-0.25 s to start, off this thread): then a client's first structure read after its
    // model turn does not wait for them; not at the start, where they slowed the first answers by ~30-100 ms
    .then(() => warmStep(() => current?.services.context?.warmOutlines()))
    .then(whenIdle)
    .then(() => lean.handOver());
}

interface Composed {
  /** The services' deps with the memory. */
  deps: ServerDeps;
  services: Awaited<ReturnType<typeof createServices>>;
  memory?: MemoryRegistry;
  recorder?: ReturnType<typeof memoryObserver>;
  /** Lets the last records land, then saves the memory (on shutdown the services stay: the process ends). */
  closeMemory(): Promise<void>;
  /** The services and the memory. */
  close(): Promise<void>;
}

/** The core for `roots`: chips, history, memory and the services, in this user's cache folders unless told. */
async function compose(opts: CliOptions, roots: string[]): Promise<Composed> {
  const cacheBase = defaultChipDir(process.env, process.platform, os.homedir());
  const chipDir = opts.chipDir ? path.resolve(opts.chipDir) : workspaceChipDir(cacheBase, roots);
  const historyDir = opts.historyDir
    ? path.resolve(opts.historyDir)
    : defaultHistoryDir(cacheBase, roots);
  const lockDir = defaultLockDir(process.env, process.platform, os.homedir());
  // ChatMemory per MCP session: <cache>/better-edit-tools-mcp/memory/<workspace key>/ unless --memory-dir says
  // otherwise. Never derived from --chip-dir (a `chat-memory` sibling of it landed inside the project).
  const memoryDir = opts.memoryDir ? path.resolve(opts.memoryDir) : defaultMemoryDir(cacheBase, roots);
  const encodingRules = opts.encodings.map(parseEncodingRule);
  const relative = (abs: string) => {
    const root = roots.find((r) => r !== abs && isInside(r, abs));
    return root === undefined ? undefined : path.relative(root, abs);
  };
  const encodingFor = encodingRulesResolver(encodingRules, relative);
  const { idle, ranks } = backgroundRanks();
  // --no-memory: no recording, no tokenizer tables in memory, and no be-memory tool.
  // The saved sessions (up to 50 of up to ~1 MB each) are read at the first quiet moment, not before the first call:
  // no tool call needs them (this process's session is new), and 50 long ones held the first reply ~140 ms.
  const openMemory = (): { memory?: MemoryRegistry; recall?: RecallStore } => {
    if (!opts.memory) return {};
    const onError = (e: unknown) => log(`memory: ${e instanceof Error ? e.message : String(e)}`);
    const memory = MemoryRegistry.openLater({ dir: memoryDir, deps: { tokenizerFor: getTokenizer }, onError });
    // Evicted messages stay recallable by id (be-memory recall): <memory dir>/recall/, bounded per session; the
    // archives of sessions no longer kept go once the saved ones are restored.
    const recall = new RecallStore({ dir: path.join(memoryDir, 'recall'), onError: (e) => log(`recall: ${e instanceof Error ? e.message : String(e)}`) });
    void recall.attach(memory).catch((e: unknown) => log(`recall: ${e instanceof Error ? e.message : String(e)}`));
    void idle.whenIdle().then(() => memory.restoreSaved()).catch(onError);
    return { memory, recall };
  };
  // the key is ours, not the user's: never in the parent of --chip-dir (`--chip-dir ~/chips` wrote ~/chip-hmac.key)
  const chipKeyPath = userChipKeyFile(cacheBase);
  const { memory, recall } = openMemory();
  // the chips, like the saved sessions, are read at the first quiet moment (a call that needs them reads them itself)
  const services = await createServices({ roots, chipDir, chipKeyPath, historyDir, lockDir, allowWrite: opts.allowWrite, log, encodingFor, scanChipsAtOpen: false });
  void idle.whenIdle().then(() => services.chips.warm()).catch((e: unknown) => log(`chips: ${e instanceof Error ? e.message : String(e)}`));
  const deps: ServerDeps = { ...services.deps, memory, recall };
  log(`v${SERVER_VERSION} roots: ${roots.join(', ')}; chips: ${chipDir}; history: ${historyDir}` + (opts.memory ? `; memory: ${memoryDir}` : ''));
  for (const warning of stateInsideRoots(roots, { chips: chipDir, history: historyDir, ...(opts.memory ? { memory: memoryDir } : {}) })) log(warning);
  if (opts.allowWrite.length) log(`writes allowed inside .git where they match: ${opts.allowWrite.join(', ')}`);
  const recorder = memory
    ? memoryObserver(memory, { onError: (e) => log(`memory: ${e instanceof Error ? e.message : String(e)}`), beforeRecord: () => atMost(RECORD_WAIT_MS, ranks.then(() => idle.whenIdle())) })
    : undefined;
  // calls are recorded after their response: let the last ones land before the final save
  const closeMemory = async () => {
    await getTokenizer().ready?.().catch(() => undefined); // the last records count now, not at idle moments
    await recorder?.settled();
    await recall?.flush();
    await memory?.dispose();
  };
  return { deps, services, memory, recorder, closeMemory, close: async () => void (await Promise.allSettled([services.close(), closeMemory()])) };
}

// A stray rejection in a background task (a chip or memory write) must not take the editor's server down.
process.on('unhandledRejection', (e: unknown) => log(`unhandled rejection: ${e instanceof Error ? e.stack ?? e.message : String(e)}`));
// The client went away: nothing left to serve.
process.stdout.on('error', () => process.exit(0));

main(process.argv.slice(2)).catch((e: unknown) => {
  log(`fatal: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  process.exit(1);
});
