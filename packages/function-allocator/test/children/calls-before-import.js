// Calls the torch hooks of the library at its first argument (librmmjs_allocators.so) in a process
// that never imported @rmmjs/function-allocator: prints, as JSON, what the allocation returned and
// the hooks' last error.
import { allocatorHookConsumer as consumer } from '@rmmjs/test-addon';

const found = consumer.open(/** @type {string} */ (process.argv[2]));
const ready = Number(consumer.torchAlloc(found.rmmjs_torch_alloc, 1024, 0, 0n));
consumer.torchFree(found.rmmjs_torch_free, 4096n, 1024, 0, 0n);
console.log(JSON.stringify([ready, consumer.lastError()]));
