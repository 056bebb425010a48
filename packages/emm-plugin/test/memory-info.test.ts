import { CudaMemoryResource, RMMError, availableDeviceMemory, setCurrentDeviceResource } from '@rmmjs/core';
import { LimitingResourceAdaptor } from '@rmmjs/limiting';
import { onFake, thrown, withCuda } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';
import { fixtures } from './support.js';

describe('getMemoryInfo', () => {
  const { base, keep, manager } = fixtures();

  it.runIf(withCuda())("is the device's free and total memory over a CudaMemoryResource", () => {
    setCurrentDeviceResource(keep(new CudaMemoryResource()));
    const info = manager().getMemoryInfo();
    expect(Object.keys(info)).toEqual(['free', 'total']);
    const [, total] = availableDeviceMemory();
    expect(info.total).toBe(total);
    expect(info.free).toBeGreaterThan(0);
    expect(info.free).toBeLessThanOrEqual(total);
    if (onFake()) expect(info.total).toBe(268435456);
  });

  it("throws RMMError where the resource cannot tell, as RMM's manager does", () => {
    const limited = keep(new LimitingResourceAdaptor(base, 1 << 20));
    setCurrentDeviceResource(limited);
    const error = thrown(() => manager().getMemoryInfo());
    expect(error).toBeInstanceOf(RMMError);
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toBe(
      'getMemoryInfo: the resource of device 0 (LimitingResourceAdaptor) cannot tell how much of the device memory ' +
        'it can still hand out',
    );
  });

  it.runIf(!withCuda())('throws in host mode (host memory is no device memory)', () => {
    const error = thrown(() => manager().getMemoryInfo());
    expect(error.code).toBe('ERR_RMM_LOGIC');
    expect(error.message).toContain('(SystemMemoryResource)');
  });
});
