/**
 * RMM's reinitialize(): runs the reinitialize hooks, then gives each device a fresh resource
 * built from the options.
 */
import {
  CudaMemoryResource,
  ManagedMemoryResource,
  RMMError,
  SystemMemoryResource,
  cuda,
  setPerDeviceResource,
  type DeviceMemoryResource,
} from '@rmmjs/core';
import {
  invalidArgType,
  native,
  outOfRange,
  runReinitializeHooks,
  validateBoolean,
  validateInteger,
  validateOptions,
  validateSizeOption,
} from '@rmmjs/core/internal';
import { LoggingResourceAdaptor, logFileNameForDevice } from '@rmmjs/logging';
import { PoolMemoryResource } from '@rmmjs/pool';

/** Options of `reinitialize()`: what each device's new resource is. */
export interface ReinitializeOptions {
  /** Wrap each device's resource in a `PoolMemoryResource`. Default false. */
  poolAllocator?: boolean;
  /** Managed (unified) memory instead of device memory. Default false. */
  managedMemory?: boolean;
  /** The pool's initial size (bytes or a byte string); ignored without `poolAllocator`. Default: half the free memory. */
  initialPoolSize?: number | string;
  /** The pool's maximum size; ignored without `poolAllocator`. Default: no maximum. */
  maximumPoolSize?: number | string;
  /** The device or devices to set up. Default 0. */
  devices?: number | number[];
  /** Log every allocation to a CSV file per device (`LoggingResourceAdaptor`). Default false. */
  logging?: boolean;
  /** The log file; device N writes it with `.devN` before the extension. Default `$RMM_LOG_FILE`. */
  logFileName?: string;
}

const flag = (value: unknown, name: string) => (value === undefined ? false : validateBoolean(value, name));

function devicesArg(devices: unknown): number[] {
  if (devices === undefined) return [0];
  if (typeof devices === 'number') return [validateInteger(devices, 'options.devices', 0)];
  if (!Array.isArray(devices)) throw invalidArgType('options.devices', 'a device number or an array of them', devices);
  return devices.map((device, i) => validateInteger(device, `options.devices[${i}]`, 0));
}

/** The pool's sizes as it will check them, before anything changes. */
function checkPoolSizes(initialPoolSize: unknown, maximumPoolSize: unknown): void {
  const initial =
    initialPoolSize === undefined ? undefined : validateSizeOption(initialPoolSize, 'options.initialPoolSize');
  const maximum =
    maximumPoolSize === undefined ? undefined : validateSizeOption(maximumPoolSize, 'options.maximumPoolSize');
  if (initial !== undefined && maximum !== undefined && initial > maximum) {
    throw new RMMError('Initial pool size exceeds the maximum pool size!');
  }
}

/**
 * Runs the hooks registered with `registerReinitializeHook` (last registered first), then, for
 * each of `devices`: a `CudaMemoryResource` (`ManagedMemoryResource` with `managedMemory`),
 * wrapped in a `PoolMemoryResource` with `poolAllocator` and in a `LoggingResourceAdaptor` with
 * `logging`, becomes that device's resource. Devices that were given a resource before and are
 * not listed get a plain `CudaMemoryResource` back. The current device is left as it was.
 * Memory from the previous resources stays valid while something holds them.
 *
 * In host mode (no CUDA driver) the one device, 0, gets a `SystemMemoryResource` as its base.
 */
export function reinitialize(options: ReinitializeOptions = {}): void {
  const { poolAllocator, managedMemory, initialPoolSize, maximumPoolSize, devices, logging, logFileName } =
    validateOptions(options, 'options') as ReinitializeOptions;
  const pooled = flag(poolAllocator, 'options.poolAllocator');
  const managed = flag(managedMemory, 'options.managedMemory');
  const logged = flag(logging, 'options.logging');
  const targets = devicesArg(devices);
  const hostMode = !cuda.isAvailable();
  const count = hostMode ? 1 : cuda.getDeviceCount();
  for (const device of targets) {
    if (device >= count) {
      throw outOfRange(
        'options.devices',
        `a device below ${count}${hostMode ? ' (host mode has device 0 only)' : ''}`,
        device,
      );
    }
  }
  // Everything that can fail on the options fails before a hook runs or a resource changes.
  if (pooled) checkPoolSizes(initialPoolSize, maximumPoolSize);
  const logFiles = logged
    ? targets.map((device) => logFileNameForDevice(logFileName, device, 'options.logFileName'))
    : [];

  runReinitializeHooks();

  const build = (): DeviceMemoryResource => {
    const base = hostMode
      ? new SystemMemoryResource()
      : managed
        ? new ManagedMemoryResource()
        : new CudaMemoryResource();
    return pooled ? new PoolMemoryResource(base, { initialPoolSize, maximumPoolSize }) : base;
  };
  const original = hostMode ? 0 : cuda.getDevice();
  try {
    for (const device of native.initializedDevices()) {
      if (targets.includes(device)) continue;
      if (!hostMode) cuda.setDevice(device);
      setPerDeviceResource(device, hostMode ? new SystemMemoryResource() : new CudaMemoryResource());
    }
    targets.forEach((device, i) => {
      if (!hostMode) cuda.setDevice(device);
      const mr = build();
      setPerDeviceResource(device, logged ? new LoggingResourceAdaptor(mr, { logFileName: logFiles[i] }) : mr);
    });
  } finally {
    if (!hostMode) cuda.setDevice(original);
  }
}
