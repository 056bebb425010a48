export declare const cuda: {
    /** True with a CUDA driver and at least one device; false in host mode. */
    isAvailable(): boolean;
    /** Why host mode is active (null when CUDA is available). */
    hostModeReason(): string | null;
    /** The number of devices (0 in host mode). */
    getDeviceCount(): number;
    /** The current device of this thread (0 until one is set, as cudaGetDevice). */
    getDevice(): number;
    /** Makes `device`'s primary context current on this thread (cudaSetDevice). */
    setDevice(device: number): void;
    /** The driver's CUDA version as an integer (13000 = 13.0); 0 when no driver is loaded. */
    driverVersion(): number;
    /** The name of a device, e.g. "NVIDIA H200". */
    deviceName(device?: number): string;
    /** A device attribute (CUdevice_attribute number). */
    deviceAttribute(attribute: number, device?: number): number;
    /** The device's default memory pool (CUmemoryPool handle). */
    getDefaultMemPool(device?: number): bigint;
    /** Where managed memory was last prefetched: a device, -1 for the host, -2 for never. */
    lastPrefetchLocation(ptr: bigint, nbytes: number): number;
};
