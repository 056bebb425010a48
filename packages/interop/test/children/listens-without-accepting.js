// Listens on the Unix socket at its first argument with a backlog of 1, answers { listening: true }
// and then never accepts (its event loop is blocked for good): once connections fill the backlog,
// a blocking connect() waits until the process ends.
import { createServer } from 'node:net';

createServer().listen({ path: process.argv[2], backlog: 1 }, () => {
  process.stdout.write(`${JSON.stringify({ listening: true })}\n`, () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // for ever
  });
});
