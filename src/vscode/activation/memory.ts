/**
 * The memory composer: ChatMemory per session (be-memory, the Token Window, @better-edit), the recall archive and
 * the turn log, kept under globalStorage in a folder named after the workspace folders. When the folders change the
 * memory moves with them: the new folder's memory is opened and the old one flushed and closed. Consumers ask for
 * `current()` at each use (or listen to onDidChange), so none holds a memory of folders no longer open.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { workspaceKey } from '../../core/files/workspaceKey';
import type { ChatMemoryOptions } from '../../core/memory/chatMemory';
import { RecallStore } from '../../core/memory/node/recallStore';
import { MemoryRegistry } from '../../core/memory/node/registry';
import { getTokenizer } from '../../core/memory/node/tokenizer';
import { TurnLog } from '../../core/memory/node/turnLog';
import { ExtractiveSummarizer, type Summarizer } from '../../core/memory/summarizer';
import type { MemoryPort, RecallPort } from '../../mcp/deps';
import { memorySettings, SwitchingSummarizer } from '../settings';
import { lmSummarizer } from '../tokenWindow/lmSummarizer';
import type { SettingsRouter } from './settings';
import type { Shell } from './shell';

export interface MemoryStack {
  dir: string;
  registry: MemoryRegistry;
  recall: RecallStore;
  turns: TurnLog;
}

/** `<storage>/memory/<key of the folders>`: one memory per set of open folders. */
export function memoryDirOf(storageDir: string, roots: readonly string[]): string {
  return path.join(storageDir, 'memory', workspaceKey(roots.length ? [...roots] : ['(no folder)']));
}

export interface MemoryHome {
  current(): MemoryStack;
  /** After the memory moved to another folder (the old one is closed after the listeners ran). */
  readonly onDidChange: vscode.Event<MemoryStack>;
  /** Moves to the memory of `roots` (nothing when it is the current one); serialized. */
  follow(roots: readonly string[]): Promise<void>;
  /** Reads the current memory at each call: the ports of every MCP session. */
  readonly port: MemoryPort & { delete(sessionId: string): Promise<void> };
  readonly recallPort: RecallPort;
  close(): Promise<void>;
}

export async function composeMemory(shell: Shell, settings: SettingsRouter, roots: readonly string[]): Promise<MemoryHome> {
  // memoryOptions is each registry's own object: updating it in place applies to sessions created later.
  const setup = memorySettings(shell.setting);
  const memoryOptions: Partial<ChatMemoryOptions> = { ...setup.options };
  let lmSummary = setup.lmSummary;
  let modelSummarizer: Summarizer | undefined;
  const summarizer = new SwitchingSummarizer(new ExtractiveSummarizer(), () => (modelSummarizer ??= lmSummarizer()), () => lmSummary);
  const warn = (what: string) => (e: unknown) => shell.log.warn(`${what}: ${e instanceof Error ? e.message : String(e)}`);

  const open = async (dir: string): Promise<MemoryStack & { subscriptions: { dispose(): void }[] }> => {
    const registry = await MemoryRegistry.open({ dir, memoryOptions, deps: { tokenizerFor: getTokenizer, summarizer }, onError: warn('memory') });
    // Evicted messages stay recallable by id (be-memory recall, @better-edit's own recall).
    const recall = new RecallStore({ dir: path.join(dir, 'recall'), onError: warn('recall') });
    const turns = await TurnLog.open(path.join(dir, 'turns'), { onError: warn('turns') });
    // the turns of sessions the registry dropped go with them (bounded like the sessions)
    const subscriptions = [await recall.attach(registry), registry.onDidChangeSessions((ids) => void turns.prune(ids))];
    void turns.prune(registry.sessionIds());
    return { dir, registry, recall, turns, subscriptions };
  };
  const closeStack = async (s: Awaited<ReturnType<typeof open>>) => {
    for (const d of s.subscriptions) d.dispose();
    await s.recall.flush();
    await s.turns.flush();
    await s.registry.dispose();
  };

  let current = await open(memoryDirOf(shell.storageDir, roots));
  const changed = new vscode.EventEmitter<MemoryStack>();
  let moving = Promise.resolve();
  const follow = (next: readonly string[]) => {
    moving = moving.then(async () => {
      const dir = memoryDirOf(shell.storageDir, next);
      if (dir === current.dir) return;
      const old = current;
      current = await open(dir);
      changed.fire(current);
      await closeStack(old);
      shell.log.info(`memory: ${dir}`);
    }).catch((err) => shell.log.error(`memory could not follow the folders: ${String(err)}`));
    return moving;
  };

  shell.own(changed, settings.on('betterEditTools.memory', () => {
    const m = memorySettings(shell.setting);
    lmSummary = m.lmSummary;
    Object.assign(memoryOptions, m.options); // sessions created from now on (the tokenizer too)
    const { maxTokens, reserveRatio, recentKeep } = m.options;
    for (const s of current.registry.sessions()) {
      try {
        current.registry.peek(s.sessionId)?.setBudget({ maxTokens, reserveRatio, recentKeep });
      } catch (err) {
        shell.log.warn(`memory budget of ${s.sessionId}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    shell.log.info(`memory settings: ${JSON.stringify(m)}`);
  }));
  return {
    current: () => current,
    onDidChange: changed.event,
    follow,
    port: { get: (id) => current.registry.get(id), delete: (id) => current.registry.delete(id) },
    recallPort: { recall: (sessionId, id) => current.recall.recall(sessionId, id) },
    close: async () => {
      await moving;
      await closeStack(current);
    },
  };
}
