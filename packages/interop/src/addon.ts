/** The typed face of @rmmjs/interop's addon (src/native). */
import { loadPackageAddon, type BufferGuardHandle, type MemoryHandle } from '@rmmjs/core/internal';

/** A napi_external tagged as a DLPack capsule (include/rmmjs/dlpack_capsule.h). */
export type CapsuleExternal = object & { readonly __brand: 'DLPackCapsuleExternal' };

/** What a capsule holds (capsuleInfo); past `minor` only for DLPack 1.x. */
export interface CapsuleInfo {
  major: number;
  minor: number;
  flags?: number;
  deviceType?: number;
  deviceId?: number;
  code?: number;
  bits?: number;
  lanes?: number;
  shape?: number[];
  strides?: number[] | null;
  byteOffset?: number;
  data?: bigint;
}

/**
 * An export's lease: while an importer's view lives, it holds a shared lock on byte `slot` of the
 * exporter's lease file, and the exporter refuses to free the memory.
 */
export interface IpcLease {
  /** `/proc/<pid>/fd/<fd>` of the exporter's lease file. */
  path: string;
  /** `<device>:<inode>` of that file, to check that `path` still names it. */
  file: string;
  /** The export's byte in the file. */
  slot: number;
}

interface InteropAddon {
  toDLPack(
    memory: MemoryHandle,
    code: number,
    bits: number,
    lanes: number,
    shape: number[],
    strides: number[] | null,
    byteOffset: number,
  ): CapsuleExternal;
  fromDLPack(capsule: CapsuleExternal): MemoryHandle;
  capsuleInfo(capsule: CapsuleExternal): CapsuleInfo | null;
  releaseCapsule(capsule: CapsuleExternal): boolean;
  isCapsule(value: unknown): value is CapsuleExternal;

  exportIpc(
    ptr: bigint,
    size: number,
    device: number,
  ): { kind: 'memory' | 'pool'; handle: string; offset: number; deviceUuid: string; pool?: string };
  newLeaseGuard(): [BufferGuardHandle, IpcLease];
  leaseActive(slot: number): boolean;
  processToken(): string;
  openIpc(
    kind: string,
    handle: string,
    offset: number,
    size: number,
    deviceUuid: string,
    pool: string | null,
    process: string | null,
    lease: IpcLease | null,
  ): MemoryHandle;
  importPool(fd: number, pool: string, deviceUuid: string): number;
  closePool(pool: string): boolean;
  openMappings(): number;
  sendPool(poolHandle: bigint, device: number, socketPath: string, timeoutMs: number): Promise<void>;
  receivePoolDescriptor(socketPath: string, timeoutMs: number): Promise<{ fd: number; payload: string }>;
  closeDescriptor(fd: number): void;
}

export const addon = loadPackageAddon<InteropAddon>(import.meta.url, '..', '@rmmjs/interop');
