/** `rmm.interop.*`: buffers crossing a boundary (DLPack, CUDA IPC between processes). */
export * from '@rmmjs/interop';
