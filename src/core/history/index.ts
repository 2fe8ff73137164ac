export * from './types';
export {
  HistoryStore,
  workspaceHistoryDir,
  DEFAULT_MAX_SNAPSHOTS,
  DEFAULT_MAX_SNAPSHOT_BYTES,
  INLINE_REMOVED_MAX,
} from './node/store';
export type { HistoryStoreOptions } from './node/store';
export { spliceBetween, applyInverse } from './splice';
export { sha256Hex } from '../util/sha256';
export type { Splice } from './splice';
