import { type DeviceMemoryResource, UpstreamResourceAdaptor } from '@rmmjs/core';
import {
  outOfRange,
  registerResourceClass,
  resourceHandle,
  validateInteger,
  validateOptions,
  validateSize,
  wrapResource,
} from '@rmmjs/core/internal';
import { FixedSizeMemoryResource } from '@rmmjs/fixed-size';
import { addon } from './addon.js';

/** Options of `BinningMemoryResource`: the bins to create at construction. */
export interface BinningMemoryResourceOptions {
  /** With `maxSizeExponent`: create FixedSizeMemoryResource bins of 2^min..2^max bytes (-1, RMM's default: none). */
  minSizeExponent?: number;
  /**
   * The exponent of the largest bin to create (2^max bytes), with `minSizeExponent`; -1 (RMM's
   * default), absent, or less than `minSizeExponent`: no bins. Bin exponents must be 0 to 30
   * (`RangeError` `ERR_OUT_OF_RANGE`).
   */
  maxSizeExponent?: number;
}

// RMM computes `1 << exponent` in an int: exponents outside 0..30 are undefined behaviour there.
const MAX_SIZE_EXPONENT = 30;

const exponent = (value: unknown, name: string) => validateInteger(value, name, -128, 127);

/** The exponents of the bins to create at construction (RMM's int8_t arguments), or none. */
function binExponents(options: BinningMemoryResourceOptions | undefined): [number, number] | undefined {
  const { minSizeExponent, maxSizeExponent } = validateOptions<BinningMemoryResourceOptions>(options);
  const min = minSizeExponent === undefined ? undefined : exponent(minSizeExponent, 'options.minSizeExponent');
  const max = maxSizeExponent === undefined ? undefined : exponent(maxSizeExponent, 'options.maxSizeExponent');
  if (min === undefined || max === undefined || min === -1 || max === -1 || min > max) return undefined;
  const range = `an integer >= 0 and <= ${MAX_SIZE_EXPONENT} (or -1 for no bins)`;
  if (min < 0) throw outOfRange('options.minSizeExponent', range, min);
  if (max > MAX_SIZE_EXPONENT) throw outOfRange('options.maxSizeExponent', range, max);
  return [min, max];
}

/**
 * Routes each request to the bin with the smallest size that fits it, or to `upstream` when no
 * bin does. Bins are FixedSizeMemoryResources over `upstream` (created by the exponents option
 * or by `addBin(size)`) or any resource given to `addBin(size, resource)`. A bin size that exists
 * already is kept (RMM's `add_bin` never replaces a bin).
 */
export class BinningMemoryResource extends UpstreamResourceAdaptor {
  constructor(upstream: DeviceMemoryResource, options?: BinningMemoryResourceOptions) {
    const upstreamHandle = resourceHandle(upstream, 'upstream');
    const exponents = binExponents(options);
    super(addon.create(upstreamHandle));
    if (exponents === undefined) return;
    try {
      for (let exponent = exponents[0]; exponent <= exponents[1]; exponent++) this.addBin(2 ** exponent);
    } catch (error) {
      this[Symbol.dispose](); // gives back the bins made so far
      throw error;
    }
  }

  /**
   * Adds a bin for requests up to `allocationSize` bytes (aligned up to 256) and larger than
   * the next smaller bin: `binResource`, or a new FixedSizeMemoryResource over the upstream
   * with that block size. Nothing changes when a bin of that size exists.
   */
  addBin(allocationSize: number, binResource?: DeviceMemoryResource): void {
    const size = validateSize(allocationSize, 'allocationSize');
    if (size === 0) throw outOfRange('allocationSize', '>= 1', size);
    const handle = resourceHandle(this, 'this');
    if (binResource !== undefined) {
      addon.addBin(handle, size, resourceHandle(binResource, 'binResource'));
      return;
    }
    if (addon.hasBin(handle, size)) return;
    const bin = new FixedSizeMemoryResource(this.upstreamMr, { blockSize: size });
    try {
      addon.addBin(handle, size, resourceHandle(bin, 'binResource'));
    } finally {
      // The native side holds the bin now (or it lost a race to an equal size and goes away).
      bin[Symbol.dispose]();
    }
  }

  /** The bin resources, smallest bin first (the objects given to `addBin` where still alive). */
  get binMrs(): DeviceMemoryResource[] {
    return addon.bins(resourceHandle(this, 'this')).map((bin) => wrapResource(bin));
  }
}

registerResourceClass('BinningMemoryResource', BinningMemoryResource);
