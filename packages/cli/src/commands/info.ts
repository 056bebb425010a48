import { availableDeviceMemory, cuda, getCurrentDeviceResource } from '@rmmjs/core';
import { invalidArgValue } from '@rmmjs/core/internal';
import { writeLines, type Command } from '../command.js';
import { formatBytes } from '../format.js';
import { onDevice } from '../on-device.js';
import { resourceStack } from '../resource-stack.js';
import {
  arrayOf,
  integerIn,
  nullable,
  oneOf,
  shape,
  validateBoolean,
  validateCount,
  validateString,
  validateStrings,
} from '../validate.js';
import { packageVersion } from '../version.js';

// CUdevice_attribute values (CUDA 13's cuda.h).
const COMPUTE_CAPABILITY_MAJOR = 75;
const COMPUTE_CAPABILITY_MINOR = 76;
const PAGEABLE_MEMORY_ACCESS = 88;
const MEMORY_POOLS_SUPPORTED = 115;

/** A device as `rmmjs info` reports it. */
export interface DeviceInfo {
  /** The device number, as `cuda.setDevice` takes it. */
  id: number;
  /** The device's name, e.g. `NVIDIA H200`. */
  name: string;
  /** The compute capability as `major.minor`, e.g. `9.0`. */
  computeCapability: string;
  /** The device's memory when `collectInfo` ran. */
  memory: {
    /** Bytes free. */
    free: number;
    /** Bytes in all. */
    total: number;
  };
  /** The device reads pageable host memory (HMM or ATS): SystemMemoryResource works on it. */
  pageableMemoryAccess: boolean;
  /** Stream-ordered memory pools (cudaMallocAsync): CudaAsyncMemoryResource works on it. */
  memoryPools: boolean;
}

/** What `rmmjs info` reports (`--json` prints this object). */
export interface MachineInfo {
  /** The versions of the command, of the core and of Node.js. */
  versions: {
    /** `@rmmjs/cli`'s version. */
    cli: string;
    /** `@rmmjs/core`'s version. */
    core: string;
    /** Node.js's version, as `process.version` (e.g. `v20.19.0`). */
    node: string;
  };
  /** `cuda` with a driver and at least one device, else `host`. */
  mode: 'cuda' | 'host';
  /** Why host mode is active (null on CUDA). */
  hostModeReason: string | null;
  /** The driver's CUDA version, 13000 for 13.0 (null in host mode). */
  driverVersion: number | null;
  /** `RMMJS_CUDA_LIBRARY` when set, else the library the loader looks for. */
  driverLibrary: string;
  /** Each device, by number (none in host mode). */
  devices: DeviceInfo[];
  /** Host memory, in host mode (where "device memory" is host memory). */
  hostMemory: {
    /** Bytes free. */
    free: number;
    /** Bytes in all. */
    total: number;
  } | null;
  /** This thread's current device (`cuda.getDevice()`; 0 in host mode). */
  currentDevice: number;
  /** The current device's resource and its upstreams, top first. */
  resourceStack: string[];
}

function deviceInfo(id: number): DeviceInfo {
  return onDevice(id, () => {
    const [free, total] = availableDeviceMemory();
    const attribute = (number: number) => cuda.deviceAttribute(number, id);
    return {
      id,
      name: cuda.deviceName(id),
      computeCapability: `${attribute(COMPUTE_CAPABILITY_MAJOR)}.${attribute(COMPUTE_CAPABILITY_MINOR)}`,
      memory: { free, total },
      pageableMemoryAccess: attribute(PAGEABLE_MEMORY_ACCESS) !== 0,
      memoryPools: attribute(MEMORY_POOLS_SUPPORTED) !== 0,
    };
  });
}

/** What `rmmjs info` prints, as data. Throws `CudaError` when the driver library cannot be loaded. */
export function collectInfo(): MachineInfo {
  const gpu = cuda.isAvailable();
  const [free, total] = gpu ? [0, 0] : availableDeviceMemory();
  return {
    versions: { cli: packageVersion(), core: packageVersion('@rmmjs/core'), node: process.version },
    mode: gpu ? 'cuda' : 'host',
    hostModeReason: cuda.hostModeReason(),
    driverVersion: gpu ? cuda.driverVersion() : null,
    driverLibrary: process.env.RMMJS_CUDA_LIBRARY || 'libcuda.so.1',
    devices: Array.from({ length: cuda.getDeviceCount() }, (_, id) => deviceInfo(id)),
    hostMemory: gpu ? null : { free, total },
    currentDevice: cuda.getDevice(),
    resourceStack: resourceStack(getCurrentDeviceResource()),
  };
}

/** 13000 -> "13.0", 12040 -> "12.4". */
export function formatDriverVersion(version: number): string {
  return `${Math.floor(version / 1000)}.${(version % 1000) / 10}`;
}

const memory = shape({ free: validateCount, total: validateCount });

const validateInfo = shape({
  versions: shape({ cli: validateString, core: validateString, node: validateString }),
  mode: oneOf(['cuda', 'host'] as const),
  hostModeReason: nullable(validateString),
  driverVersion: nullable(validateCount),
  driverLibrary: validateString,
  devices: arrayOf(
    shape({
      id: validateCount,
      name: validateString,
      computeCapability: validateString,
      memory,
      pageableMemoryAccess: validateBoolean,
      memoryPools: validateBoolean,
    }),
  ),
  hostMemory: nullable(memory),
  currentDevice: integerIn(0),
  resourceStack: validateStrings,
});

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** The lines `rmmjs info` prints for `info` (without `--json`). */
export function formatInfo(info: MachineInfo): string[] {
  info = validateInfo(info, 'info');
  const { versions } = info;
  const lines = [`rmmjs ${versions.cli} (@rmmjs/core ${versions.core}, Node.js ${versions.node})`];
  if (info.mode === 'host') {
    lines.push(`mode: host (${info.hostModeReason?.replace(/\.$/, '')}); device memory is host memory`);
    if (info.hostMemory === null) throw invalidArgValue('info.hostMemory', 'must be an object in host mode');
    const { free, total } = info.hostMemory;
    lines.push(`host memory: ${formatBytes(free)} free of ${formatBytes(total)}`);
  } else {
    if (info.driverVersion === null) throw invalidArgValue('info.driverVersion', 'must be a number in CUDA mode');
    const count = info.devices.length;
    lines.push(
      `mode: CUDA ${formatDriverVersion(info.driverVersion)} driver (${info.driverLibrary}), ${count} device${count === 1 ? '' : 's'}`,
    );
    for (const device of info.devices) {
      lines.push(
        `device ${device.id}: ${device.name}, compute capability ${device.computeCapability}`,
        `  memory: ${formatBytes(device.memory.free)} free of ${formatBytes(device.memory.total)}`,
        `  pageable memory access: ${yesNo(device.pageableMemoryAccess)}`,
        `  memory pools (CudaAsyncMemoryResource): ${yesNo(device.memoryPools)}`,
      );
    }
  }
  lines.push(`current device: ${info.currentDevice}`, `resource stack: ${info.resourceStack.join(' > ')}`);
  return lines;
}

export const infoCommand: Command = {
  name: 'info',
  summary: 'the CUDA driver, each device (memory, pageable access, memory pools), host mode, the resource stack',
  help: `Usage: rmmjs info [--json]

Prints the CUDA driver and each device: its name, free and total memory, whether it reads
pageable host memory and whether it has memory pools (CudaAsyncMemoryResource); or that rmmjs
runs in host mode and why; and the current device's resource stack.

Options:
  --json      print the same as JSON
  -h, --help  this help`,
  options: { json: { type: 'boolean' } },
  positionals: { min: 0, max: 0, names: '' },
  async run(values, _positionals, { stdout }) {
    const info = collectInfo();
    if (values.json) stdout.write(JSON.stringify(info, null, 2) + '\n');
    else writeLines(stdout, formatInfo(info));
  },
};
