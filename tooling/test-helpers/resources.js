// The resources suites run over (one table for every package), and the fixtures around them.
// @rmmjs/core and the sibling packages are imported as the package under test resolves them:
// this package cannot depend on them (their tests depend on it).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { fakeCuda } from '@rmmjs/fake-cuda';
import { exampleArguments, importResource, registrationsOf } from '@rmmjs/registry';
import {
  MiB,
  expectBytes,
  importFromPackage,
  onFake,
  packageUnderTest,
  packageUses,
  pattern,
  resolveFromPackage,
  withCuda,
} from './basics.js';

export const core = await importFromPackage('@rmmjs/core');
export const coreInternal = await importFromPackage('@rmmjs/core/internal');
const testAddon = packageUses('@rmmjs/test-addon') ? await importFromPackage('@rmmjs/test-addon') : undefined;
const callback = packageUses('@rmmjs/callback') ? await importFromPackage('@rmmjs/callback') : undefined;

const { DeviceBuffer, cuda, getCurrentDeviceResource, setCurrentDeviceResource } = core;

/** CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: HMM or ATS, which system memory on a GPU needs. */
export const PAGEABLE_MEMORY_ACCESS = 88;

/** Whether system memory works here: always in host mode, on a GPU with pageable memory access. */
export const pageableMemoryAccess = () => !withCuda() || cuda.deviceAttribute(PAGEABLE_MEMORY_ACCESS) === 1;

const coreDirectory = dirname(resolveFromPackage('@rmmjs/core/package.json'));
const coreManifest = JSON.parse(readFileSync(join(coreDirectory, 'package.json'), 'utf8'));

const notADependency = (name) =>
  `${name} is not a dependency of the package under test: add "${name}": "workspace:*" to its devDependencies`;

/**
 * The meter: @rmmjs/test-addon's CountingResourceAdaptor over `upstream` (default: the current
 * device resource), whose `getAllocatedBytes()` counts what the resources above it took, each
 * allocation rounded up to 256. The package under test must list @rmmjs/test-addon in its
 * devDependencies.
 */
export function counting(upstream = getCurrentDeviceResource()) {
  if (testAddon === undefined) throw new Error(notADependency('@rmmjs/test-addon'));
  return new testAddon.CountingResourceAdaptor(upstream);
}

/**
 * A CallbackMemoryResource over the current device resource that records its calls in order
 * (`calls`: 'allocate <nbytes>' and 'deallocate <nbytes>'). The package under test must list
 * @rmmjs/callback in its devDependencies.
 */
export function recordingCallbackResource() {
  if (callback === undefined) throw new Error(notADependency('@rmmjs/callback'));
  const base = getCurrentDeviceResource();
  const calls = [];
  const mr = new callback.CallbackMemoryResource(
    (nbytes, stream) => {
      calls.push(`allocate ${nbytes}`);
      return base.allocate(nbytes, stream);
    },
    (ptr, nbytes, stream) => {
      calls.push(`deallocate ${nbytes}`);
      base.deallocate(ptr, nbytes, stream);
    },
  );
  return { calls, mr };
}

const inAnyMode = () => true;

/** What a registration's `needs` asks of this backend. */
const available = (needs) => () =>
  needs.every((need) => (need === 'cuda' ? withCuda() : need === 'pageableMemoryAccess' && pageableMemoryAccess()));

// The base resources registered by core and by the package under test (their package.json's
// "rmmjs" block) that can be made from their example arguments, with those classes.
const registeredBases = await Promise.all(
  [
    ...registrationsOf(coreManifest, coreDirectory),
    ...(packageUnderTest.name === coreManifest.name ? [] : registrationsOf(packageUnderTest, process.cwd())),
  ]
    .filter((r) => r.kind === 'base' && r.example !== undefined)
    .map(async (r) => ({ registration: r, Class: await importResource(r) })),
);

/**
 * Every resource suites run with or over: the current device resource, the registered base
 * resources, and the counting adaptor. `available()`: whether this backend can construct it;
 * `needsCuda`: it cannot exist in host mode; `needsPageableMemoryAccess`: on a GPU it needs HMM
 * or ATS (on the fake driver the conformance suite turns the attribute on); `hostAccessible`:
 * the host can read its memory; `managed`: CUDA managed memory; `equalInstances`: two of them
 * compare equal (`isEqual`), as in RMM; `owned`: made for the caller, who disposes it (false for
 * the current device resource); `cannot`: conformance cases it cannot do (see conformance/types.ts);
 * `package`: where it comes from.
 */
export const resourceTable = [
  {
    name: 'the current device resource',
    make: () => getCurrentDeviceResource(),
    available: inAnyMode,
    hostAccessible: !withCuda(),
    managed: false,
    owned: false,
    package: '@rmmjs/core',
  },
  ...registeredBases.map(({ registration, Class }) => ({
    name: registration.class,
    make: () => new Class(...exampleArguments(registration, { memoryPool: () => cuda.getDefaultMemPool() })),
    available: available(registration.needs),
    needsCuda: registration.needs.includes('cuda'),
    needsPageableMemoryAccess: registration.needs.includes('pageableMemoryAccess'),
    hostAccessible: registration.hostAccessible,
    managed: registration.managed,
    equalInstances: registration.equalInstances,
    cannot: registration.cannot,
    package: registration.package,
  })),
  {
    name: 'CountingResourceAdaptor',
    make: () => counting(),
    available: inAnyMode,
    requires: '@rmmjs/test-addon',
    hostAccessible: !withCuda(),
    counts: (mr) => mr.getAllocatedBytes(),
    package: '@rmmjs/test-addon',
  },
].map((entry) => ({
  managed: false,
  needsCuda: false,
  needsPageableMemoryAccess: false,
  equalInstances: false,
  owned: true,
  cannot: {},
  ...entry,
}));

/** The resources of @rmmjs/core (the table less the current device resource). */
export const coreResources = () => resourceTable.filter((entry) => entry.owned && entry.package === '@rmmjs/core');

/** The entries of `names`, in that order, that this backend can construct. */
export function upstreams(...names) {
  const entries = names.map(entry);
  for (const { requires } of entries)
    if (requires !== undefined && !packageUses(requires)) throw new Error(notADependency(requires));
  return entries.filter((item) => item.available());
}

function entry(name) {
  const found = resourceTable.find((item) => item.name === name);
  if (found === undefined)
    throw new Error(`no resource "${name}" in the table (${resourceTable.map((item) => item.name).join(', ')})`);
  return found;
}

/**
 * Returns `keep(item)`: items kept are disposed after each test, last first (never the current
 * device resource), so that no test leaves memory taken on the small fake devices.
 */
export function disposeAfterEach() {
  const items = [];
  afterEach(() => {
    for (const item of items.splice(0).reverse()) item[Symbol.dispose]();
  });
  return (item) => {
    if (item !== getCurrentDeviceResource()) items.push(item);
    return item;
  };
}

/** Makes every test of the calling suite end with the current device resource of now, which it returns. */
export function restoreCurrentDeviceResourceAfterEach() {
  const previous = getCurrentDeviceResource();
  afterEach(() => {
    setCurrentDeviceResource(previous);
  });
  return previous;
}

/**
 * Turns CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS on for every fake device (so system memory
 * resources can be made) and returns what puts the old values back. Fake driver only.
 */
export function enableFakePageableMemoryAccess() {
  if (!onFake()) throw new Error('enableFakePageableMemoryAccess: only the fake driver has settable attributes');
  const devices = [...Array(cuda.getDeviceCount()).keys()];
  const before = devices.map((device) => cuda.deviceAttribute(PAGEABLE_MEMORY_ACCESS, device));
  for (const device of devices) fakeCuda.setAttribute(device, PAGEABLE_MEMORY_ACCESS, 1);
  return () => devices.forEach((device) => fakeCuda.setAttribute(device, PAGEABLE_MEMORY_ACCESS, before[device]));
}

/** RMM's array_tester: to_device, device_array_like, a device copy, copy_to_host (over `mr`, default the current resource). */
export function arrayTester(nbytes, seed, mr) {
  // Big arrays get a cheap pattern: a fill with a few distinct bytes.
  const data = nbytes <= MiB ? pattern(nbytes, seed) : new Uint8Array(nbytes).fill(seed & 0xff);
  if (nbytes > MiB) for (let i = 0; i < nbytes; i += 65_537) data[i] = (i >>> 16) & 0xff;
  const input = new DeviceBuffer({ data, mr });
  const result = new DeviceBuffer({ size: input.size, mr });
  result.copyFromDevice(input);
  expectBytes(result.toBytes(), data);
  input.free();
  result.free();
}

/** RMM's Python tests' _dtypes (item sizes) and _nelems. */
export const itemSizes = [1, 2, 4, 8, 4, 8, 1];
export const nelems = [1, 2, 7, 8, 9, 32, 128];
