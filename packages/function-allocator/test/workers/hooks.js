// The allocator hooks as this worker sees them: answers [their library, the torch allocate address].
import { allocatorHooks } from '@rmmjs/function-allocator';
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => [allocatorHooks.library, allocatorHooks.torch.alloc.address]);
