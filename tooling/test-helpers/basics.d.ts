// What basics.js exports: the backend, errors, resolution, and everything of bytes.js.
export * from './bytes.js';

export type Backend = 'host' | 'fake' | 'gpu';
export function backend(): Backend;
export function onHost(): boolean;
export function onFake(): boolean;
export function onGpu(): boolean;
export function withCuda(): boolean;
export function underComputeSanitizer(): boolean;
export function thrown(fn: () => unknown): any;
export function rejected(promise: Promise<unknown>): Promise<any>;
export function resolveFromPackage(name: string): string;
export function importFromPackage(name: string): Promise<any>;
export const packageUnderTest: { name: string; [key: string]: unknown };
export function packageUses(name: string): boolean;
