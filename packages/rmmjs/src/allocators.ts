/**
 * `rmm.allocators.*`: memory for array libraries (RMM's `rmm.allocators`).
 *
 * @module
 */
export * from '@rmmjs/function-allocator';
export * from '@rmmjs/emm-plugin';
