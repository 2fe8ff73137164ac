/** The ports tests build a ChatMemory or MemoryRegistry with: the shared tokenizers, as the composition roots give them. */
import type { ChatMemoryDeps } from '../../../src/core/memory/chatMemory';
import { getTokenizer } from '../../../src/core/memory/node/tokenizer';

export const memoryDeps: ChatMemoryDeps = { tokenizerFor: getTokenizer };
