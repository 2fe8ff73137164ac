/**
 * Runs every agent on every task: one temporary copy of each repository per agent, one real server per copy,
 * the edited file checked on disk after each task and then put back, so tasks do not see each other's edits.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENTS, type AgentRun } from './agents';
import { builtinServer } from './builtin';
import { startServer, type CallRecord, type Server } from './mcp';
import { HOSTS, type Host } from './hosts';
import type { RepoTasks, Task } from './tasks';

export interface TaskResult {
  repo: string;
  task: Task;
  agent: string;
  /** ours only: the host profile our server sized its replies to (the others' replies do not depend on it) */
  host?: string;
  calls: CallRecord[];
  catalogTokens: number;
  run?: AgentRun;
  error?: string;
  landed: boolean;
}

export interface Workspace {
  root: string;
  server: Server;
  close(): Promise<void>;
}

export interface ServerPaths {
  /** the built stdio CLI (dist/cli.js) */
  ours: string;
  /** @modelcontextprotocol/server-filesystem's entry */
  fs: string;
}

/** A private copy of the repository (no .git) and a server started on it. */
export async function openWorkspace(repo: RepoTasks, kind: 'fs' | 'ours' | 'builtin', paths: ServerPaths, host?: Host): Promise<Workspace> {
  const base = mkdtempSync(join(tmpdir(), `bench-ctx-${repo.repo}-${kind}-`));
  const root = join(base, 'ws');
  cpSync(repo.dir, root, { recursive: true, filter: (p) => !/(^|[\\/])(\.git|node_modules)$/.test(p) });
  const server =
    kind === 'builtin'
      ? builtinServer(root)
      : kind === 'fs'
      ? await startServer({ name: 'server-filesystem', command: process.execPath, args: [paths.fs, root], cwd: root })
      : await startServer({
          name: 'better-edit-tools',
          command: process.execPath,
          // As a user starts it (memory on: its catalog includes be-memory); state kept out of the copy.
          args: [paths.ours, '--root', root, '--chip-dir', join(base, 'state', 'chips'), '--history-dir', join(base, 'state', 'history')],
          env: { XDG_CACHE_HOME: join(base, 'cache'), LANG: 'C' },
          cwd: root,
          clientName: host?.clientName,
        });
  return {
    root,
    server,
    async close() {
      await server.close().catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export async function runRepo(
  repo: RepoTasks,
  paths: ServerPaths,
  onResult: (r: TaskResult) => void,
): Promise<TaskResult[]> {
  const results: TaskResult[] = [];
  // ours once per host profile (its replies are sized to the client that asked); the others once
  const runs = AGENTS.flatMap((agent) => (agent.server === 'ours' ? HOSTS.map((h): { agent: typeof agent; host?: Host } => ({ agent, host: h })) : [{ agent }]));
  for (const { agent, host } of runs) {
    const ws = await openWorkspace(repo, agent.server, paths, host);
    try {
      for (const task of repo.tasks.filter((t) => !t.skip)) {
        const path = join(ws.root, task.answer.file);
        const original = readFileSync(path, 'utf8');
        const expected = original.replace(task.edit.old, () => task.edit.new);
        ws.server.take();
        let run: AgentRun | undefined;
        let error: string | undefined;
        try {
          run = await agent.run({ server: ws.server, root: ws.root, repo, task });
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
        }
        const landed = readFileSync(path, 'utf8') === expected;
        writeFileSync(path, original);
        const r: TaskResult = { repo: repo.repo, task, agent: agent.key, ...(host ? { host: host.id } : {}), calls: ws.server.take(), catalogTokens: ws.server.catalogTokens, run, error, landed };
        results.push(r);
        onResult(r);
      }
    } finally {
      await ws.close();
    }
  }
  return results;
}

/** Model-view tokens of a task: every reply, plus the catalog once per turn (one call per turn). */
export function taskTokens(r: TaskResult): number {
  return r.calls.reduce((n, c) => n + c.replyTokens, 0) + r.catalogTokens * r.calls.length;
}
