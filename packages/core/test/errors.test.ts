import { CudaError, OutOfMemoryError, RMMError } from '@rmmjs/core';
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
