export * from './types';
export { EditService, DEFAULT_LIMITS, type EditLimits, type EditServiceDeps, type ChipRenderer } from './service';
export { ViewedCodeRegistry, type ViewedRecord, type ViewedRegistryOptions } from './viewedCode';
export type { Lang } from './messages';
