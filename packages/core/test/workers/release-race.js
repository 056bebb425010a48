// Round by round, as the main thread releases resource number `round` (workerData.slots[at.round]):
// fromShared of its token, one allocation, dispose; then says the round is done (slots[at.done]).
// Answers how many rounds got the resource, how many ERR_RMM_DISPOSED, and any other error.
import { DeviceMemoryResource } from '@rmmjs/core';
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/**
 * @type {{
 *   slots: SharedArrayBuffer,
 *   at: { round: number, done: number, ready: number },
 *   tokens: import('@rmmjs/core').SharedResourceToken[],
 * }}
 */
const { slots: shared, at, tokens } = workerData;

await answer(() => {
  const slots = new Int32Array(shared);
  const seen = { taken: 0, gone: 0, other: /** @type {string[]} */ ([]) };
  Atomics.store(slots, at.ready, 1);
  for (let round = 1; round <= tokens.length; round++) {
    while (Atomics.load(slots, at.round) < round) Atomics.wait(slots, at.round, round - 1, 100);
    try {
      const mr = DeviceMemoryResource.fromShared(tokens[round - 1]);
      mr.deallocate(mr.allocate(256), 256);
      mr[Symbol.dispose]();
      seen.taken++;
    } catch (error) {
      const { code, message } = /** @type {import('@rmmjs/core').RMMError} */ (error);
      if (code === 'ERR_RMM_DISPOSED') seen.gone++;
      else seen.other.push(`${code}: ${message}`);
    }
    Atomics.store(slots, at.done, round);
    Atomics.notify(slots, at.done);
  }
  return seen;
});
