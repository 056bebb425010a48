// The fuzz loop: fast-check generates sequences of commands (a model and its argument
// descriptors); each sequence runs in a fresh world, which is torn down and checked at the end.
import fc from 'fast-check';
import { importEntryPoint, inventory } from './inventory.js';
import { World } from './world.js';
import { Call } from './oracle.js';
import * as V from './values.js';
import addonModels, { receiverMethods } from './models/addon.js';
import cliModels from './models/cli.js';
import coreModels from './models/core.js';
import emmModels from './models/emm-plugin.js';
import functionAllocatorModels from './models/function-allocator.js';
import interopModels from './models/interop.js';
import deviceBufferModels from './models/device-buffer.js';
import loggingModels from './models/logging.js';
import resourceModels from './models/resources.js';
import statisticsModels from './models/statistics.js';
import umbrellaModels from './models/umbrella.js';

/** Every model; each lists the coverage keys (see inventory.js) it calls. */
export function allModels() {
  return [
    ...coreModels(),
    ...deviceBufferModels(),
    ...resourceModels(),
    ...loggingModels(),
    ...statisticsModels(),
    ...addonModels(),
    ...interopModels(),
    ...emmModels(),
    ...functionAllocatorModels(),
    ...umbrellaModels(),
    ...cliModels(),
    abstractBases(),
  ];
}

// The abstract bases: not constructible from JavaScript (only with a native handle).
function abstractBases() {
  return {
    name: 'abstract base classes',
    covers: ['@rmmjs/core:DeviceMemoryResource.new', '@rmmjs/core:UpstreamResourceAdaptor.new'],
    args: fc.tuple(fc.boolean(), V.hostile),
    run(world, [upstream, h]) {
      const call = new Call(world, 'new DeviceMemoryResource');
      const value = call.value(h);
      call.invalid('type');
      const Class = upstream ? world.P.core.UpstreamResourceAdaptor : world.P.core.DeviceMemoryResource;
      call.run(() => new Class(value));
    },
  };
}

/** The packages, by short name and every class by name (`P.byName.PoolMemoryResource`). */
export async function loadPackages() {
  const { modules } = await inventory();
  const short = (entry) =>
    entry
      .replace('@rmmjs/', '')
      .replace('/addon', 'Addon')
      .replace(/-([a-z])/g, (_, c) => c.toUpperCase());
  const P = {};
  for (const [entry, module] of Object.entries(modules)) P[short(entry)] = module;
  P.addon = P.coreAddon;
  P.internal = await importEntryPoint('@rmmjs/core/internal');
  P.fakeCuda = (await import('@rmmjs/test-helpers')).fakeCuda;
  const { core } = P;
  const devices = Math.max(1, core.cuda.getDeviceCount());
  P.pristine = {
    device: core.cuda.isAvailable() ? core.cuda.getDevice() : 0,
    perDevice: Array.from({ length: devices }, (_, device) => core.getPerDeviceResource(device)),
  };
  // Large async copies (the CLI's demo and bench make them) go through pinned staging that core
  // keeps for the process: made here once, it is part of every run's baseline.
  const staging = await core.DeviceBuffer.toDeviceAsync(new Uint8Array(16 << 20));
  await staging.copyToHostAsync();
  staging.free();
  P.byPackage = modules;
  P.byName = {};
  for (const module of Object.values(modules)) {
    for (const [name, value] of Object.entries(module)) if (typeof value === 'function') P.byName[name] = value;
  }
  return P;
}

class Command {
  constructor(model, args) {
    this.model = model;
    this.args = args;
  }
  [fc.toStringMethod]() {
    return `${this.model.name}(${fc.stringify(this.args)})`;
  }
}

export function commandArbitrary(models) {
  return fc.oneof(...models.map((model) => model.args.map((args) => new Command(model, args))));
}

/**
 * Runs one sequence in a fresh world. `keep(i)` picks the commands to run (for shrinking crashes
 * in a child); `onCommand(i)` is told before each one runs.
 */
export async function runSequence(
  P,
  backend,
  commands,
  { keep = () => true, onCommand = () => {}, coverage, crashOn } = {},
) {
  const world = new World(P, { backend });
  world.receiverMethods = receiverMethods(P);
  world.start();
  try {
    for (let i = 0; i < commands.length; i++) {
      if (!keep(i)) continue;
      onCommand(i);
      const { model, args } = commands[i];
      if (model.name === crashOn) process.abort(); // the parent's crash reporting, tested (test/crash.test.ts)
      for (const key of model.covers) coverage?.add(key);
      world.retries = 3;
      await model.run(world, args);
      world.throwAsyncFailure();
      // Async copies in flight allocate or free when they end: counters are compared between them.
      if (world.pending.size === 0) world.counting.checkAll(`after ${model.name}`);
    }
  } catch (error) {
    onCommand(-1);
    await world.teardown().catch(() => {}); // the first failure is the one to report
    throw error;
  }
  onCommand(-1);
  await world.teardown();
  return world.calls;
}
