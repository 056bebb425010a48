/**
 * @rmmjs/emm-plugin: `RMMExternalMemoryManager`, RMM's Numba EMM plugin for JavaScript: the
 * interface a JavaScript GPU array library takes its memory through, over rmmjs.
 *
 * @packageDocumentation
 */
export { RMMExternalMemoryManager } from './external-memory-manager.js';
export type {
  MemHostAllocOptions,
  MemPinOptions,
  MemoryInfo,
  RMMExternalMemoryManagerOptions,
} from './external-memory-manager.js';
export { MemoryPointer } from './memory-pointer.js';
export { ManagedMemory } from './managed-memory.js';
export { MappedMemory } from './mapped-memory.js';
export { PinnedMemory } from './pinned-memory.js';
export { hostAddress } from './host-address.js';
