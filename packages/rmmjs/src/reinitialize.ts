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

// What PoolMemoryResource refuses in its sizes (its own checks, in its words), checked before
// anything changes: the pool itself checks them only once the hooks have run.
const POOL_ALIGNMENT = 256;

function checkPoolSizes(initialPoolSize: unknown, maximumPoolSize: unknown): void {
  const initial =
    initialPoolSize === undefined ? undefined : validateSizeOption(initialPoolSize, 'options.initialPoolSize');
  const maximum =
    maximumPoolSize === undefined ? undefined : validateSizeOption(maximumPoolSize, 'options.maximumPoolSize');
  if (initial !== undefined && initial % POOL_ALIGNMENT !== 0) {
    throw new RMMError('Error, Initial pool size required to be a multiple of 256 bytes');
  }
  if (maximum !== undefined && maximum % POOL_ALIGNMENT !== 0) {
    throw new RMMError('Error, Maximum pool size required to be a multiple of 256 bytes');
  }
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
 * A call refused for its options changes nothing: every option is checked before a hook runs.
 * One that fails while the new resources are built (out of memory) has run the hooks, and no
 * device has been given a new resource.
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

  // Every device's new resource is built before any is set: one that fails to build (the memory
  // runs out) leaves every device as it was, and what was built for the others goes.
  const built: DeviceMemoryResource[] = [];
  const make = <T extends DeviceMemoryResource>(mr: T): T => (built.push(mr), mr);
  const base = (managedBase: boolean): DeviceMemoryResource =>
    make(hostMode ? new SystemMemoryResource() : managedBase ? new ManagedMemoryResource() : new CudaMemoryResource());
  const stack = (i: number): DeviceMemoryResource => {
    let mr = base(managed);
    if (pooled) mr = make(new PoolMemoryResource(mr, { initialPoolSize, maximumPoolSize }));
    return logged ? make(new LoggingResourceAdaptor(mr, { logFileName: logFiles[i] })) : mr;
  };
  const original = hostMode ? 0 : cuda.getDevice();
  const onDevice = <T>(device: number, fn: () => T): T => {
    if (!hostMode) cuda.setDevice(device);
    return fn();
  };
  const resources: Array<[number, DeviceMemoryResource]> = [];
  try {
    for (const device of native.initializedDevices()) {
      if (!targets.includes(device)) resources.push([device, onDevice(device, () => base(false))]);
    }
    targets.forEach((device, i) => resources.push([device, onDevice(device, () => stack(i))]));
  } catch (error) {
    for (const mr of built.reverse()) mr[Symbol.dispose]();
    throw error;
  } finally {
    if (!hostMode) cuda.setDevice(original);
  }
  for (const [device, mr] of resources) setPerDeviceResource(device, mr);
}
