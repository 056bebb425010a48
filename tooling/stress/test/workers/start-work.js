// The work in flight at exit, for the main thread of a child process and for its worker: 20 buffers
// on a stream, one of `bigBytes` whose asynchronous copy takes several slices, a copy to a small
// one, a pending stream synchronisation and an asynchronous upload, all kept reachable on globalThis.
import { DeviceBuffer, Stream } from '@rmmjs/core';
import { MiB } from '@rmmjs/test-helpers/bytes';

/** @param {number} bigBytes */
export function startWork(bigBytes) {
  const stream = new Stream();
  /** @type {(DeviceBuffer | Stream)[]} */
  const live = Array.from({ length: 20 }, (_, i) => new DeviceBuffer({ size: 1000 * (i + 1), stream }));
  const big = new DeviceBuffer({ size: bigBytes, stream });
  const first = /** @type {DeviceBuffer} */ (live[0]);
  live.push(big, stream);
  const pending = [
    big.copyToHostAsync(undefined, stream),
    first.copyFromHostAsync(new Uint8Array(1000), stream),
    stream.synchronizeAsync(),
    DeviceBuffer.toDeviceAsync(new Uint8Array(MiB), stream),
  ];
  Object.assign(globalThis, { live, pending });
}
