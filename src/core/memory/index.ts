export * from './types';
export * from './tokenizer';
export * from './chatMemory';
export * from './summarizer';
export * from './registry';
export * from './recap';
export { referencesFromArgs, parseFileReference, formatReference } from './references';
export { fingerprintOf, keyIdentifiers, headOf } from './fingerprint';
export type { Disposable } from '../emitter';
