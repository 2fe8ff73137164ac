export * from './types';
export {
  HistoryStore,
  workspaceHistoryDir,
  DEFAULT_MAX_SNAPSHOTS,
  DEFAULT_MAX_SNAPSHOT_BYTES,
  INLINE_REMOVED_MAX,
} from './store';
export type { HistoryStoreOptions } from './store';
export { spliceBetween, applyInverse, sha256Hex } from './splice';
export type { Splice } from './splice';
