// Helpers shared by the packages' suites (see README.md), in JavaScript that any process can load:
// vitest, a plain node child process, a worker. The suites' entry, suite.ts, adds the conformance suite.
export { fakeCuda, libraryPath as fakeCudaLibraryPath } from '@rmmjs/fake-cuda';
export * from './basics.js';
export { expectAddonExports } from './addon-exports.js';
export * from './workers.js';
export {
  PAGEABLE_MEMORY_ACCESS,
  arrayTester,
  coreResources,
  counting,
  disposeAfterEach,
  enableFakePageableMemoryAccess,
  itemSizes,
  nelems,
  pageableMemoryAccess,
  recordingCallbackResource,
  resourceTable,
  restoreCurrentDeviceResourceAfterEach,
  upstreams,
} from './resources.js';
export { describeStreamOfAnotherDevice, steadyStateDriverCalls } from './streams.js';
export { countFullCollections, dropOnlyLoops } from './collector.js';
