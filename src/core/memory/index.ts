export * from './types';
export * from './node/tokenizer';
export * from './chatMemory';
export * from './summarizer';
export * from './node/registry';
export * from './recap';
export { referencesFromArgs, parseFileReference, formatReference } from './references';
export { fingerprintOf, keyIdentifiers, headOf } from './fingerprint';
export type { Disposable } from '../emitter';
