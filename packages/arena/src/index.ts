export { ArenaMemoryResource, type ArenaMemoryResourceOptions } from './arena-memory-resource.js';
