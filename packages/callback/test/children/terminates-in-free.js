// Five times: terminates workers/stuck-in-free.js while it is inside DeviceBuffer.free(); then
// prints 'ok'.
import { Worker } from 'node:worker_threads';

for (let i = 0; i < 5; i++) {
  const worker = new Worker(new URL('../workers/stuck-in-free.js', import.meta.url));
  await new Promise((resolve, reject) => {
    worker.once('message', () => void worker.terminate().then(resolve, reject));
    worker.once('error', reject);
  });
}
console.log('ok');
