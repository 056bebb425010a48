/**
 * `rmm.interop.*`: buffers crossing a boundary (DLPack, CUDA IPC between processes).
 *
 * @module
 */
export * from '@rmmjs/interop';
