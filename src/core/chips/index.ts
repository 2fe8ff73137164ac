export * from './types';
export { ChipStore, chipEvictionWarning, DEFAULT_CHIP_CAPACITY, DEFAULT_CHIP_THRESHOLD_BYTES, MAX_CHIP_FILE_BYTES } from './store';
export type { ChipStoreOptions } from './store';
export { renderChip, commentSyntax } from './render';
export type { CommentSyntax } from './render';
export { defaultChipDir, defaultMemoryDir, stateInsideRoots, workspaceChipDir, workspaceKey, APP_DIR_NAME } from './paths';
export { chipKind, originalTextOf, previewOf } from './content';
export { boundErrorText, boundChipArgs, headOfArg, ARG_HEAD_CHARS, MAX_ERROR_CHARS } from './bound';
export type { Disposable } from '../emitter';
