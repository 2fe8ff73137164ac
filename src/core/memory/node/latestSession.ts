/**
 * Reads the most recently saved session of a memory directory (the registry's `<id>.memory.json` files) without
 * opening a registry: a hook's recap must not prune, rewrite or lock anything. The newest file by mtime wins
 * (every save rewrites it); only regular files are read, each bounded like the registry's restore.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readStateFile } from '../../files/stateFile';
import { ChatMemory, type ChatMemoryDeps, type ChatMemoryJSON } from '../chatMemory';
import { MAX_SESSION_FILE_BYTES, sessionFileName } from './registry';

export interface LoadedSession {
  sessionId: string;
  lastActivity: number;
  memory: ChatMemory;
  file: string;
}

const SUFFIX = '.memory.json';

export async function readLatestSession(
  dir: string,
  deps: ChatMemoryDeps,
  opts: { sessionId?: string; onWarning?: (m: string) => void } = {},
): Promise<LoadedSession | undefined> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith(SUFFIX));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  if (opts.sessionId !== undefined) names = names.filter((n) => n === sessionFileName(opts.sessionId!));
  const dated: { name: string; mtime: number }[] = [];
  for (const name of names) {
    const st = await fs.lstat(path.join(dir, name)).catch(() => undefined);
    if (st?.isFile()) dated.push({ name, mtime: st.mtimeMs });
  }
  dated.sort((a, b) => b.mtime - a.mtime);
  // The newest file that parses: a torn or foreign file is skipped with a warning, the next one tried.
  for (const { name } of dated) {
    const file = path.join(dir, name);
    const read = await readStateFile(file, MAX_SESSION_FILE_BYTES);
    if (!read.ok) {
      opts.onWarning?.(`skipping ${file}: ${read.reason}`);
      continue;
    }
    try {
      const saved = JSON.parse(read.text) as { sessionId: string; lastActivity: number; memory: ChatMemoryJSON };
      if (typeof saved.sessionId !== 'string' || sessionFileName(saved.sessionId) !== name) throw new Error('session id does not match the file name');
      return { sessionId: saved.sessionId, lastActivity: saved.lastActivity, memory: ChatMemory.fromJSON(saved.memory, deps), file };
    } catch (err) {
      opts.onWarning?.(`skipping ${file}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return undefined;
}
