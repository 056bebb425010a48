// What index.js exports (suite.ts adds the conformance suite).
export { fakeCuda, libraryPath as fakeCudaLibraryPath } from '@rmmjs/fake-cuda';
export * from './basics.js';
export * from './addon-exports.js';
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
export type { CountingAdaptor, ResourceEntry, UpstreamCase } from './resources.js';
export type { CannotReason, ConformanceCase } from './conformance/types.js';

export * from './streams.js';
export * from './collector.js';
