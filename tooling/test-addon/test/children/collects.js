// Drops an object registered for finalization, runs collect(), and prints whether its finalizer ran.
import { collect } from '@rmmjs/test-helpers/child';

let finalized = false;
const registry = new FinalizationRegistry(() => {
  finalized = true;
});
registry.register({}, 'dropped');
await collect();
console.log(finalized);
