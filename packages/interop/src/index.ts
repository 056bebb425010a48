/**
 * @rmmjs/interop: DeviceBuffers crossing a boundary. DLPack 1.1 capsules (toDLPack, fromDLPack)
 * for array libraries and native code in the same process, and CUDA IPC handles (exportIpcHandle,
 * openIpcHandle, sendIpcPool, receiveIpcPool) for other processes: Node, or Python with CuPy and
 * PyTorch (python/rmmjs_ipc.py).
 *
 * @packageDocumentation
 */
export { DLPackCapsule, DLDeviceType, toDLPack, fromDLPack } from './dlpack.js';
export type { ToDLPackOptions } from './dlpack.js';
export { dtypes } from './dtypes.js';
export type { DLPackDType, DLPackDTypeName } from './dtypes.js';
export { exportIpcHandle, openIpcHandle, sendIpcPool, receiveIpcPool, IpcPool, openIpcMappings } from './ipc.js';
export type { IpcHandle, IpcLease, IpcPoolOptions } from './ipc.js';
