// An arena over a CudaMemoryResource of its own, disposed of at once: with cuMemFree_v2 failing
// (the environment's fault injection), what its destructor logs goes to the debug log.
import { CudaMemoryResource } from '@rmmjs/core';
import { ArenaMemoryResource } from '@rmmjs/arena';

new ArenaMemoryResource(new CudaMemoryResource(), { arenaSize: '1 MiB' })[Symbol.dispose]();
