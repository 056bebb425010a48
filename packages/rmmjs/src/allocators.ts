/** `rmm.allocators.*`: memory for array libraries (RMM's `rmm.allocators`). */
export * from '@rmmjs/function-allocator';
export * from '@rmmjs/emm-plugin';
