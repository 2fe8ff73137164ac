/**
 * stdio entry for MCP clients (Claude Code, Cursor, Claude Desktop): `better-edit-tools --root DIR`.
 * stdout is the protocol; everything else goes to stderr.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import process from 'node:process';
import { createServer, SERVER_VERSION } from '../mcp/server';
import { createServices, defaultHistoryDir } from '../mcp/services';
import { LineStdioServerTransport } from '../mcp/stdio';
import { startHttpHost } from '../mcp/httpHost';
import { defaultChipDir, workspaceChipDir } from '../core/chips/paths';
import { parseCli, USAGE, type CliOptions } from './args';
import { resolveRoots } from './roots';

const log = (message: string) => process.stderr.write(`[better-edit-tools] ${message}\n`);

export async function main(argv: string[]): Promise<void> {
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

  let roots: string[];
  try {
    roots = resolveRoots(opts, process.cwd());
  } catch (e) {
    log((e as Error).message);
    process.exitCode = 2;
    return;
  }
  if (roots.some((r) => path.parse(r).root === r)) {
    log(`WARNING: a root is the file system root (${roots.join(', ')}): the tools can edit any file this user can.`);
  }

  const cacheBase = defaultChipDir(process.env, process.platform, os.homedir());
  const chipDir = opts.chipDir ? path.resolve(opts.chipDir) : workspaceChipDir(cacheBase, roots);
  const historyDir = opts.historyDir
    ? path.resolve(opts.historyDir)
    : defaultHistoryDir(cacheBase, roots);
  const services = await createServices({ roots, chipDir, historyDir, log });
  log(`v${SERVER_VERSION} roots: ${roots.join(', ')}; chips: ${chipDir}; history: ${historyDir}`);

  if (opts.http) {
    const host = await startHttpHost({
      port: opts.port ?? 0,
      createServerForSession: (sessionId) =>
        createServer(services.deps, { sessionId, noPrefix: opts.noPrefix, lang: opts.lang, log }),
      log,
    });
    log(`HTTP: ${host.url}`);
    log(`token: ${host.token}`);
    const stop = () => void host.close().then(() => process.exit(0));
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return;
  }

  const server = createServer(services.deps, {
    sessionId: `stdio-${randomUUID()}`,
    noPrefix: opts.noPrefix,
    lang: opts.lang,
    log,
  });
  const transport = new LineStdioServerTransport(process.stdin, process.stdout, { log });
  server.onerror = (e) => log(`protocol error: ${e.message}`);
  const previousOnClose = server.onclose;
  server.onclose = () => {
    previousOnClose?.();
    void services.close().finally(() => process.exit(0));
  };
  await server.connect(transport);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  log(`fatal: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
  process.exit(1);
});
