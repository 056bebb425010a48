// The umbrella package `rmmjs`: what it re-exports is the packages' own (their models cover it:
// see inventory.js); this is what only it has, reinitialize(). The registry it changes is put back
// by the world's teardown.
import fc from 'fast-check';
import { Call, FuzzFailure, boolean, integer, options, sizeOption } from '../params.js';
import * as V from '../values.js';

const KiB = 1024;
const MiB = 1024 * KiB;

const poolSize = (...valid) => V.sizeOption(fc.constantFrom(...valid));

function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false; // a revoked Proxy: V8's TypeError, which the call's flags allow
  }
}

export default function umbrellaModels() {
  return [
    {
      name: 'reinitialize',
      covers: ['rmmjs:reinitialize'],
      args: V.options({
        poolAllocator: V.bool,
        managedMemory: V.bool,
        initialPoolSize: poolSize(0, 256, 4096, MiB, 1000),
        maximumPoolSize: poolSize(MiB, 4 * MiB, 100 * KiB + 1),
        devices: fc.oneof(
          V.integerAmong(0, 1, 2, -1, 0.5),
          fc.constantFrom([0], [0, 1], [1], [], [0, 0], [0, 'x'], [-1], [5]).map((lit) => ({ lit })),
        ),
        logging: V.bool,
        logFileName: V.fileName,
      }),
      run(world, o) {
        const { core, rmmjs, logging, pool } = world.P;
        const call = new Call(world, 'reinitialize');
        let value = call.value(o);
        const count = core.cuda.isAvailable() ? core.cuda.getDeviceCount() : 1;
        let targets = [0];
        let expect = true; // what success makes of each device is known
        if (options(call, value) && 'o' in o) {
          value = {};
          for (const [key, descriptor] of Object.entries(o.o)) value[key] = call.value(descriptor);
          const { poolAllocator, managedMemory, initialPoolSize, maximumPoolSize, devices, logFileName } = value;
          for (const key of ['poolAllocator', 'managedMemory', 'logging']) {
            if (value[key] !== undefined) boolean(call, value[key]);
          }
          if (typeof devices === 'number') targets = [devices];
          else if (isArray(devices)) targets = devices;
          else if (devices !== undefined) call.invalid('type');
          for (const device of targets) {
            integer(call, device, 0, 2 ** 31 - 1);
            if (Number.isInteger(device) && device >= count) call.invalid('range'); // a device this process lacks
          }
          if (poolAllocator === true) {
            // Never the default initial size (half of the free memory): a small one.
            if (initialPoolSize === undefined) value.initialPoolSize = 4096;
            const initial = sizeOption(call, value.initialPoolSize);
            const maximum = maximumPoolSize === undefined ? undefined : sizeOption(call, maximumPoolSize);
            if (initial !== undefined && maximum !== undefined && initial > maximum) call.invalid('logic');
            // Sizes the pool refuses, refused before any hook runs.
            if ([initial, maximum].some((size) => size !== undefined && size % 256 !== 0)) call.invalid('logic');
            call.allow('oom'); // no memory for the pool
          }
          if (value.logging === true && targets.length > 0) {
            // A file name for each device listed (none listed: none needed).
            if (logFileName === undefined || logFileName === '')
              call.invalid('value'); // no RMM_LOG_FILE here
            else if (typeof logFileName !== 'string') call.invalid('type');
            else call.allow('value', 'logic'); // a file that cannot be opened
          }
        } else if (value !== undefined) {
          call.allow('type', 'range', 'value', 'logic'); // another object's own properties
          expect = false;
        }
        // The reinitialize hooks run first: one the world registered may throw (its own error).
        if (world.hooks.length > 0) call.allow('hostile');
        const before = world.P.pristine.perDevice.map((_, device) => core.getPerDeviceResource(device));
        for (const mr of before) world.adoptResource(mr);
        const current = core.cuda.isAvailable() ? core.cuda.getDevice() : 0;
        const result = call.run(() => rmmjs.reinitialize(value));
        // Each device's resource now (new ones, or the old ones after a failure) joins the world.
        const after = before.map((_, device) => core.getPerDeviceResource(device));
        for (const mr of after) world.adoptResource(mr);
        if ((core.cuda.isAvailable() ? core.cuda.getDevice() : 0) !== current)
          throw new FuzzFailure('reinitialize changed the current device');
        // A call that failed (refused, or out of memory while it built the resources) changed nothing.
        const changed = after.findIndex((mr, device) => mr !== before[device]);
        if (!result.ok && changed >= 0) throw new FuzzFailure(`a failed reinitialize changed device ${changed}`);
        if (!result.ok || !expect) return;
        const { poolAllocator, managedMemory } = value ?? {};
        for (const device of new Set(targets)) {
          let mr = after[device];
          if (value?.logging === true) {
            if (!(mr instanceof logging.LoggingResourceAdaptor))
              throw new FuzzFailure(`reinitialize({ logging: true }): device ${device} has a ${mr.constructor.name}`);
            mr = mr.upstreamMr;
          }
          if (poolAllocator === true) {
            if (!(mr instanceof pool.PoolMemoryResource))
              throw new FuzzFailure(
                `reinitialize({ poolAllocator: true }): device ${device} has a ${mr.constructor.name}`,
              );
            mr = mr.upstreamMr;
          }
          const base = !core.cuda.isAvailable()
            ? core.SystemMemoryResource
            : managedMemory === true
              ? core.ManagedMemoryResource
              : core.CudaMemoryResource;
          if (mr.constructor !== base)
            throw new FuzzFailure(
              `reinitialize: device ${device}'s base is a ${mr.constructor.name}, not ${base.name}`,
            );
          if (before.includes(after[device])) throw new FuzzFailure(`reinitialize left device ${device} as it was`);
        }
      },
    },
  ];
}
