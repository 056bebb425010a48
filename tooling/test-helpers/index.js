// Helpers shared by the packages' suites (see README.md).
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
  resourceTable,
  restoreCurrentDeviceResourceAfterEach,
  upstreams,
} from './resources.js';
export { describeStreamOfAnotherDevice, steadyStateDriverCalls } from './streams.js';
export { conformanceCases, conformanceSeed, describeConformance } from './conformance.js';
