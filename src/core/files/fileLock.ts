// The per-file in-process lock is util/mutex.ts's KeyedMutex; this name stays while edits/service.ts imports it.
export { KeyedMutex as FileLocks } from '../util/mutex';
