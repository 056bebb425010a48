// The current device resource, a BinningMemoryResource the main thread made: its bins as the
// adopted wrapper sees them, one bin added, a buffer through it. Answers what the test compares.
import { DeviceBuffer, getCurrentDeviceResource } from '@rmmjs/core';
import { BinningMemoryResource } from '@rmmjs/binning';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { KiB } from '@rmmjs/test-helpers/bytes';
import { answer } from '@rmmjs/test-helpers/worker';

/** @param {import('@rmmjs/core').DeviceMemoryResource} bin */
const blockSize = (bin) => /** @type {FixedSizeMemoryResource} */ (bin).getBlockSize();

await answer(() => {
  const mr = /** @type {BinningMemoryResource} */ (getCurrentDeviceResource());
  const bins = mr.binMrs;
  const before = bins.map((bin) => [bin.constructor.name, blockSize(bin)]);
  mr.addBin(4 * KiB);
  const buffer = new DeviceBuffer({ data: new Uint8Array(3000).fill(7) });
  const ok = buffer.toBytes().every((b) => b === 7);
  buffer.free();
  return [mr instanceof BinningMemoryResource, mr.binMrs[0] === bins[0], before, mr.binMrs.map(blockSize), ok];
});
