// Answers workerData's numbers doubled, once an await has passed (the work may be asynchronous).
import { answer } from '@rmmjs/test-helpers/worker';
import { workerData } from 'node:worker_threads';

/** @type {number[]} */
const numbers = workerData;

await answer(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  return numbers.map((n) => n * 2);
});
