/** `cuda.*`: the CUDA driver as rmmjs uses it (the runtime calls RMM takes from cuda-python). */
import { CudaError, invalidArgType, outOfRange } from './errors.js';
import { native, type DriverInfo } from './native.js';
import { afterAllAsyncCopies } from './stream-order.js';
import { validateInteger, validateSize } from './validate.js';

let info: DriverInfo | undefined;

/** What loading the driver found (loads it on first call). */
function driverInfo(): DriverInfo {
  info ??= native.driverInfo();
  if (info.mode === 'broken') {
    throw new CudaError(info.reason, {
      code: 'ERR_CUDA_DRIVER_NOT_FOUND',
      cudaErrorCode: 3,
      cudaErrorName: 'CUDA_ERROR_NOT_INITIALIZED',
    });
  }
  return info;
}

function deviceArg(device: number | undefined): number {
  return device === undefined ? native.getDevice() : validateInteger(device, 'device', 0);
}

/**
 * The CUDA driver as rmmjs uses it: devices, the current device, synchronisation and memory pools.
 * The driver is loaded on the first call that needs it; when `RMMJS_CUDA_LIBRARY` names a library
 * that cannot be used, the calls that load it throw `CudaError` `ERR_CUDA_DRIVER_NOT_FOUND`.
 */
export const cuda = {
  /** True with a CUDA driver and at least one device; false in host mode. */
  isAvailable(): boolean {
    return driverInfo().mode === 'cuda';
  },
  /** Why host mode is active (null when CUDA is available). */
  hostModeReason(): string | null {
    const { mode, reason } = driverInfo();
    return mode === 'cuda' ? null : reason;
  },
  /** The number of devices (0 in host mode). */
  getDeviceCount(): number {
    return driverInfo().deviceCount;
  },
  /** The current device of this thread (0 until one is set, as cudaGetDevice). */
  getDevice(): number {
    driverInfo();
    return native.getDevice();
  },
  /** Makes `device`'s primary context current on this thread (cudaSetDevice). */
  setDevice(device: number): void {
    validateInteger(device, 'device', 0);
    driverInfo();
    native.setDevice(device);
  },
  /** The driver's CUDA version as an integer (13000 = 13.0); 0 when no driver is loaded. */
  driverVersion(): number {
    return driverInfo().driverVersion;
  },
  /** Waits until all work on the device (default: the current one) has finished, asynchronous copies included. */
  synchronize(device?: number): void {
    const target = deviceArg(device);
    afterAllAsyncCopies();
    native.synchronize(target);
  },
  /** The name of a device, e.g. "NVIDIA H200". */
  deviceName(device?: number): string {
    return native.deviceName(deviceArg(device));
  },
  /** A device attribute (CUdevice_attribute number). */
  deviceAttribute(attribute: number, device?: number): number {
    return native.deviceAttribute(deviceArg(device), validateInteger(attribute, 'attribute', 0));
  },
  /** The device's default memory pool (CUmemoryPool handle). */
  getDefaultMemPool(device?: number): bigint {
    return native.getDefaultMemPool(deviceArg(device));
  },
  /** Where managed memory was last prefetched: a device, -1 for the host, -2 for never. */
  lastPrefetchLocation(ptr: bigint, nbytes: number): number {
    if (typeof ptr !== 'bigint') throw invalidArgType('ptr', 'of type bigint', ptr);
    if (ptr < 0n || ptr >= 2n ** 64n) throw outOfRange('ptr', 'a 64-bit unsigned integer (0 to 2^64 - 1)', ptr);
    return native.lastPrefetchLocation(ptr, validateSize(nbytes, 'nbytes'));
  },
};
