import {
  CudaAsyncMemoryResource,
  CudaError,
  CudaStreamPool,
  DeviceBuffer,
  OutOfMemoryError,
  RMMError,
  SamHeadroomMemoryResource,
  Stream,
  parseBytes,
} from '@rmmjs/core';
import { thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

describe('error classes', () => {
  it('RMMError defaults to ERR_RMM_LOGIC and takes a code and a cause', () => {
    const plain = new RMMError('broken');
    expect(plain).toBeInstanceOf(Error);
    expect(plain.message).toBe('broken');
    expect(plain.code).toBe('ERR_RMM_LOGIC');
    expect(plain.name).toBe('RMMError');
    const cause = new Error('root');
    const coded = new RMMError('gone', { code: 'ERR_RMM_DISPOSED', cause });
    expect(coded.code).toBe('ERR_RMM_DISPOSED');
    expect(coded.cause).toBe(cause);
  });

  it('OutOfMemoryError and CudaError extend RMMError', () => {
    const oom = new OutOfMemoryError('Maximum pool size exceeded');
    expect(oom).toBeInstanceOf(RMMError);
    expect(oom.code).toBe('ERR_RMM_OUT_OF_MEMORY');
    expect(oom.name).toBe('OutOfMemoryError');
    const cudaError = new CudaError('CUDA error at cuMemFree_v2', {
      cudaErrorCode: 1,
      cudaErrorName: 'CUDA_ERROR_INVALID_VALUE',
    });
    expect(cudaError).toBeInstanceOf(RMMError);
    expect(cudaError.code).toBe('ERR_CUDA');
    expect(cudaError.cudaErrorCode).toBe(1);
    expect(cudaError.cudaErrorName).toBe('CUDA_ERROR_INVALID_VALUE');
  });
});

describe('argument errors (Node style)', () => {
  const message = (fn: () => unknown): string => thrown(fn).message;

  it('an option is named options.X and is a property; a positional argument keeps its name', () => {
    expect(message(() => new CudaAsyncMemoryResource({ initialPoolSize: -1 }))).toBe(
      'The value of "options.initialPoolSize" is out of range. It must be a non-negative safe integer (0 to 2^53 - 1). Received -1',
    );
    expect(message(() => new CudaAsyncMemoryResource({ releaseThreshold: '1k' }))).toBe(
      'The property "options.releaseThreshold" is invalid. Could not parse 1k as a byte specification',
    );
    expect(message(() => new CudaAsyncMemoryResource({ enableIpc: 1 as never }))).toBe(
      'The "options.enableIpc" property must be of type boolean. Received type number (1)',
    );
    expect(message(() => new Stream({ priority: 0.5 }))).toBe(
      'The value of "options.priority" is out of range. It must be an integer >= -2147483648 and <= 2147483647. Received 0.5',
    );
    expect(message(() => new CudaStreamPool({ nonBlocking: 'no' as never }))).toBe(
      `The "options.nonBlocking" property must be of type boolean. Received type string ('no')`,
    );
    expect(message(() => new DeviceBuffer({ size: 4, data: new Uint8Array(2) }))).toBe(
      'The property "options.data" has 2 bytes, fewer than options.size (4)',
    );
    expect(message(() => new DeviceBuffer({ stream: {} as never }))).toBe(
      'The "options.stream" property must be an instance of Stream. Received an instance of Object',
    );
    expect(message(() => new SamHeadroomMemoryResource('1k'))).toBe(
      'The argument "headroom" is invalid. Could not parse 1k as a byte specification',
    );
    expect(message(() => parseBytes('1k'))).toBe(
      'The argument "s" is invalid. Could not parse 1k as a byte specification',
    );
    expect(message(() => parseBytes(true as never))).toBe(
      'The "s" argument must be of type number or string. Received type boolean (true)',
    );
  });
});
