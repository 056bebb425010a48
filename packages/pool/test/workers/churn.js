// Through the current device resource, on the thread that calls it (a worker, and the main thread
// too): `rounds` buffers filled, checked byte for byte and freed, half on a stream of the thread's
// own; then raw allocate/deallocate with up to 32 live. Returns the buffers that kept their bytes.
import { DeviceBuffer, Stream, getCurrentDeviceResource } from '@rmmjs/core';

/**
 * @param {number} seed
 * @param {number} rounds
 */
export function churn(seed, rounds) {
  const stream = new Stream();
  const mr = getCurrentDeviceResource();
  let ok = 0;
  for (let i = 0; i < rounds; i++) {
    const size = 1 + ((i * 7919 + seed * 104729) % 200000);
    const value = (seed * 31 + i) & 0xff;
    const onStream = i % 2 === 1 ? stream : undefined;
    const buffer = new DeviceBuffer({ data: new Uint8Array(size).fill(value), stream: onStream });
    const back = buffer.toBytes(onStream);
    if (back.length === size && back.every((b) => b === value)) ok++;
    buffer.free();
  }
  /** @type {[bigint, number, Stream | undefined][]} */
  const live = [];
  for (let i = 0; i < 20000; i++) {
    if (live.length >= 32 || (live.length > 0 && (i * 2654435761 + seed) % 7 < 3)) {
      const [ptr, size, s] = /** @type {[bigint, number, Stream | undefined]} */ (live.pop());
      mr.deallocate(ptr, size, s);
    } else {
      const size = 1 + ((i * 40503 + seed) % 65536);
      const s = i % 3 === 0 ? stream : undefined;
      live.push([mr.allocate(size, s), size, s]);
    }
  }
  for (const [ptr, size, s] of live) mr.deallocate(ptr, size, s);
  stream[Symbol.dispose]();
  return ok;
}
