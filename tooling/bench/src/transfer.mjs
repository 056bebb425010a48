// Moving DeviceBuffers between worker_threads: what transfer() + fromTransferred() cost on one
// thread, and a round trip main -> worker -> main (each side claims and transfers the buffer back)
// next to the same round trip of a bare postMessage and of a copy through host memory.
import { Worker } from 'node:worker_threads';
import * as core from '@rmmjs/core';
import { median } from './timing.mjs';

const coreUrl = import.meta.resolve('@rmmjs/core');
const MiB = 1 << 20;

// A worker that sends back what it gets: a transferred buffer as a transfer of its own, host bytes
// as a buffer's bytes (device in, device out), anything else as it is.
const echo = `
  const { parentPort } = await import('node:worker_threads');
  const core = await import(${JSON.stringify(coreUrl)});
  parentPort.on('message', ({ kind, payload }) => {
    if (kind === 'transfer') {
      parentPort.postMessage(core.DeviceBuffer.fromTransferred(payload).transfer());
    } else if (kind === 'copy') {
      const buffer = core.DeviceBuffer.toDevice(payload);
      const bytes = buffer.toBytes();
      buffer.free();
      parentPort.postMessage(bytes, [bytes.buffer]);
    } else {
      parentPort.postMessage(payload);
    }
  });
  parentPort.postMessage('ready');`;

function request(worker, message, transferList) {
  return new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(message, transferList);
  });
}

// Microseconds per round trip, the median of 5 runs of `rounds` each.
async function roundTripUs(rounds, once) {
  const runs = [];
  for (let run = 0; run < 6; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) await once();
    if (run > 0) runs.push(Number(process.hrtime.bigint() - start) / rounds / 1000);
  }
  return runs.sort((a, b) => a - b)[2];
}

export async function benchTransfers({ record, quick }) {
  const group = 'threads: DeviceBuffer';
  const size = MiB;
  let buffer = new core.DeviceBuffer({ size });
  const iterations = quick ? 2_000 : 20_000;
  const sameThread = median(() => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < iterations; i++) buffer = core.DeviceBuffer.fromTransferred(buffer.transfer());
    return Number(process.hrtime.bigint() - start) / iterations;
  });
  record(group, 'transfer()+fromTransferred() 1 MiB, one thread', sameThread, 'ns');

  const worker = new Worker(echo, { eval: true });
  await new Promise((resolve) => worker.once('message', resolve));
  const rounds = quick ? 200 : 2_000;
  const transfer = await roundTripUs(rounds, async () => {
    const token = await request(worker, { kind: 'transfer', payload: buffer.transfer() });
    buffer = core.DeviceBuffer.fromTransferred(token);
  });
  const message = await roundTripUs(rounds, () => request(worker, { kind: 'message', payload: { id: '1' } }));
  const copy = await roundTripUs(quick ? 50 : 500, async () => {
    const bytes = buffer.toBytes();
    const back = await request(worker, { kind: 'copy', payload: bytes }, [bytes.buffer]);
    buffer.copyFromHost(back);
  });
  await worker.terminate();
  buffer.free();
  record(group, 'round trip main->worker->main, 1 MiB by transfer', transfer, 'us');
  record(
    group,
    'round trip of a bare postMessage',
    message,
    'us',
    `transfer adds ${(transfer - message).toFixed(1)} us`,
  );
  record(group, 'round trip of 1 MiB copied through host memory', copy, 'us');
}
