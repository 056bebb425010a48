// 500 lines at level 2 into the debug log from this thread, each naming the worker (workerData).
import { native } from '@rmmjs/core/internal';
import { workerData } from 'node:worker_threads';

for (let i = 0; i < 500; i++) native.log(2, `worker ${workerData} line ${i}`);
