/** Absolute path of build/libfakecuda.so: point RMMJS_CUDA_LIBRARY at it. */
export declare const libraryPath: string;

/** A CUDA error code, or its name ('CUDA_ERROR_OUT_OF_MEMORY'). */
export type CudaErrorCode = number | string;

export interface FakeCudaStats {
  /** Live allocations of every kind (device, managed, pool, pinned host). */
  liveAllocations: number;
  liveBytes: number;
  /** Per device: bytes of live device, managed and pool allocations (pinned host excluded). */
  liveDeviceBytes: number[];
  liveStreams: number;
  liveEvents: number;
  /** Pools from cuMemPoolCreate not yet destroyed (default pools not counted). */
  livePools: number;
  /** Host ranges registered with cuMemHostRegister_v2 and not unregistered. */
  liveRegistrations: number;
  /** Calls per exported symbol (e.g. 'cuMemAlloc_v2') since load or the last reset(). */
  calls: Record<string, number>;
}

export interface FakeCuda {
  /** Runs a raw control command and returns its output; throws on an invalid command. */
  control(command: string): string;
  /** Clears armed faults and call counters; allocations stay. */
  reset(): void;
  /** The nth call of symbol (an exported name such as 'cuMemAlloc_v2') from now fails once. */
  failNext(symbol: string, nth: number, error: CudaErrorCode): void;
  /** Every call of symbol fails until clearFaults() or reset(). */
  failAlways(symbol: string, error: CudaErrorCode): void;
  clearFaults(): void;
  setAttribute(device: number, attribute: number, value: number): void;
  /** Sets a device's memory budget (what cuMemGetInfo_v2 reports as total). */
  setMemory(device: number, bytes: number | bigint): void;
  stats(): FakeCudaStats;
}

/**
 * Controls the fake driver that this process loaded: the library at
 * process.env.RMMJS_CUDA_LIBRARY, else libraryPath. The addon loads on first use.
 */
export declare const fakeCuda: FakeCuda;
