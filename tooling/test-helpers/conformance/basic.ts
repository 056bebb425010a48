// The resource as an object: its class, device and accessibility, as the current device resource,
// its equality, and the arguments it refuses (RMM's mr_ref_test.hpp basics).
import type { DeviceMemoryResource } from '@rmmjs/core';
import { expect } from 'vitest';
import { expectBytes, withCuda } from '../basics.js';
import { core, coreInternal } from '../resources.js';
import { expectError, roundTrip } from './checks.js';
import { fillPattern } from './common.js';
import type { Suite } from './types.js';

const { DeviceBuffer, DeviceMemoryResource: Resource, UpstreamResourceAdaptor, cuda } = core;
const { getCurrentDeviceResource, getCurrentDeviceResourceType, setCurrentDeviceResource } = core;

// Resource flags of the C ABI (include/rmmjs/abi.h).
const RESOURCE_DEVICE_ACCESSIBLE = 0x1;
const RESOURCE_HOST_ACCESSIBLE = 0x2;

const flagsOf = (mr: DeviceMemoryResource): number =>
  coreInternal.native.resourceInfo(coreInternal.resourceHandle(mr, 'mr')).flags;

export function basicCases(suite: Suite): void {
  const { name, adaptor, options, make, test } = suite;
  test(
    'identity',
    `is ${adaptor ? 'an UpstreamResourceAdaptor' : 'a DeviceMemoryResource'} of its own class on the current device, with the right accessibility`,
    () => {
      const { mr, upstream } = make();
      expect(mr).toBeInstanceOf(Resource);
      expect(mr instanceof UpstreamResourceAdaptor).toBe(adaptor);
      expect(mr.constructor.name).toBe(name);
      expect(mr.device).toBe(withCuda() ? cuda.getDevice() : 0);
      const flags = flagsOf(mr);
      expect(flags & RESOURCE_DEVICE_ACCESSIBLE).toBe(RESOURCE_DEVICE_ACCESSIBLE);
      const hostAccessible = options.hostAccessible ?? (flagsOf(upstream!) & RESOURCE_HOST_ACCESSIBLE) !== 0;
      expect((flags & RESOURCE_HOST_ACCESSIBLE) !== 0).toBe(hostAccessible);
    },
  );
  currentResourceCase(suite);
  isEqualCase(suite);
  badArgumentsCase(suite);
}

function currentResourceCase({ make, settled, test }: Suite): void {
  test(
    'currentResource',
    'works as the current device resource: DeviceBuffers allocate from it; the previous one comes back',
    () => {
      const { mr, gone } = make();
      const previous = setCurrentDeviceResource(mr);
      try {
        expect(getCurrentDeviceResource()).toBe(mr);
        expect(getCurrentDeviceResourceType()).toBe(mr.constructor);
        const data = fillPattern(5000, 7);
        const buffer = new DeviceBuffer({ data });
        expect(buffer.mr).toBe(mr);
        expectBytes(buffer.toBytes(), data);
        buffer.free();
      } finally {
        expect(setCurrentDeviceResource(previous)).toBe(mr);
      }
      expect(getCurrentDeviceResource()).toBe(previous);
      settled(mr);
      gone();
    },
  );
}

function isEqualCase({ adaptor, options, make, another, test }: Suite): void {
  const equal = options.equalInstances ?? false;
  test(
    'isEqual',
    `isEqual: true for itself and its wrappers, ${equal} for another instance (both ways), ERR_INVALID_ARG_TYPE for a non-resource`,
    () => {
      const { mr, upstream } = make();
      const other = another(upstream);
      expect(mr.isEqual(mr)).toBe(true);
      expect([mr.isEqual(other), other.isEqual(mr)]).toEqual([equal, equal]);
      const buffer = new DeviceBuffer({ size: 8, mr });
      expect(buffer.mr).toBe(mr);
      expect(buffer.mr.isEqual(mr)).toBe(true);
      buffer.free();
      if (adaptor) expect([mr.isEqual(upstream!), upstream!.isEqual(mr)]).toEqual([false, false]);
      expectError(() => mr.isEqual({} as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    },
  );
}

function badArgumentsCase({ make, settled, test }: Suite): void {
  test(
    'badArguments',
    'bad sizes (RangeError, TypeError), pointers and streams (TypeError) throw with their codes and allocate nothing',
    () => {
      const { mr, gone } = make();
      for (const size of [-1, 1.5, NaN, Infinity, 2 ** 53]) {
        expectError(() => mr.allocate(size), RangeError, 'ERR_OUT_OF_RANGE', '"nbytes"');
        expectError(() => mr.deallocate(256n, size), RangeError, 'ERR_OUT_OF_RANGE', '"nbytes"');
      }
      for (const size of ['1', 1n, {}, undefined] as never[]) {
        expectError(() => mr.allocate(size), TypeError, 'ERR_INVALID_ARG_TYPE', '"nbytes"');
        expectError(() => mr.deallocate(256n, size), TypeError, 'ERR_INVALID_ARG_TYPE', '"nbytes"');
      }
      const nullStream = 'stream argument cannot be null';
      expectError(() => mr.deallocate(256 as never, 8), TypeError, 'ERR_INVALID_ARG_TYPE', '"ptr"');
      expectError(() => mr.allocate(8, null as never), TypeError, 'ERR_INVALID_ARG_TYPE', nullStream);
      expectError(() => mr.deallocate(256n, 8, null as never), TypeError, 'ERR_INVALID_ARG_TYPE', nullStream);
      expectError(
        () => new DeviceBuffer({ size: 8, mr, stream: null as never }),
        TypeError,
        'ERR_INVALID_ARG_TYPE',
        nullStream,
      );
      for (const stream of [{ handle: 0n }, 0n, 'default'] as never[]) {
        expectError(() => mr.allocate(8, stream), TypeError, 'ERR_INVALID_ARG_TYPE', 'Stream');
        expectError(() => mr.deallocate(256n, 8, stream), TypeError, 'ERR_INVALID_ARG_TYPE', 'Stream');
      }
      settled(mr);
      roundTrip(mr, 1000, 3);
      gone();
    },
  );
}
