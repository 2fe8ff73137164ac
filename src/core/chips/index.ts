export * from './types';
export { ChipStore, chipEvictionWarning, DEFAULT_CHIP_CAPACITY, DEFAULT_CHIP_THRESHOLD_BYTES } from './store';
export type { ChipStoreOptions } from './store';
export { renderChip, commentSyntax } from './render';
export type { CommentSyntax } from './render';
export { defaultChipDir, workspaceChipDir, workspaceKey, APP_DIR_NAME } from './paths';
export { originalTextOf, previewOf } from './content';
export type { Disposable } from '../emitter';
