export { fakeCuda, libraryPath as fakeCudaLibraryPath } from '@rmmjs/fake-cuda';
export type Backend = 'host' | 'fake' | 'gpu';
export function backend(): Backend;
export function onHost(): boolean;
export function onFake(): boolean;
export function onGpu(): boolean;
export function withCuda(): boolean;
export function pattern(length: number, seed: number): Uint8Array;
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number;
export function expectBytes(actual: ArrayLike<number>, expected: ArrayLike<number>): void;
export function random(seed: number): () => number;
export function thrown(fn: () => unknown): any;
export function rejected(promise: Promise<unknown>): Promise<any>;
export function resolveFromPackage(name: string): string;
export function runInWorker(
  source: string,
  options?: { modules?: Record<string, string>; workerData?: unknown },
): Promise<any>;
