export { ArenaMemoryResource, arenaSummary, type ArenaMemoryResourceOptions } from './arena-memory-resource.js';
export type { ArenaSummary } from './addon.js';
