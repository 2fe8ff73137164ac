/**
 * The one folder watcher of the project: fs.watch on a directory (not recursive), its events debounced into one
 * call. The chip store watches its folder with it (other processes save and delete chips there) and so does the
 * extension's Agent Edits view (agents in other processes record edits in the history folder). Where fs.watch is not
 * available the handle does nothing: the owner's Refresh still reads everything.
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Disposable } from '../emitter';

export interface DirWatchOptions {
  /** Quiet time after the last event before `onChange` runs (default 150 ms). */
  debounceMs?: number;
  /** Names that count (temp files, locks and counters need not wake anyone); an event without a name always counts. */
  accept?: (name: string) => boolean;
  /** Why the folder cannot be watched, or a watcher error; never thrown. */
  onError?: (message: string) => void;
}

export const DIR_WATCH_DEBOUNCE_MS = 150;

export function watchDir(dir: string, onChange: () => void, o: DirWatchOptions = {}): Disposable {
  const debounceMs = o.debounceMs ?? DIR_WATCH_DEBOUNCE_MS;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let watcher: FSWatcher | undefined;
  const fire = () => {
    if (!closed) onChange();
  };
  try {
    watcher = watch(dir, (_event, name) => {
      if (name && o.accept && !o.accept(String(name))) return;
      clearTimeout(timer);
      timer = setTimeout(fire, debounceMs);
    });
    watcher.on('error', (err) => o.onError?.(`watching ${dir}: ${err instanceof Error ? err.message : String(err)}`));
    watcher.unref(); // a watch never keeps a process (the CLI, a test) alive
  } catch (err) {
    o.onError?.(`cannot watch ${dir}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    dispose: () => {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
