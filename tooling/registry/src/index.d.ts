/** A constructor argument (after the upstream) as a registration declares it. */
export type Argument =
  | { name?: string; type: 'size'; bytes: boolean; min: number; max?: number }
  | { name?: string; type: 'integer'; min: number; max: number }
  | { name?: string; type: 'boolean' }
  | { name?: string; type: 'fileName'; requiredUnlessEnv?: string }
  | { name?: string; type: 'options'; fields: Record<string, Argument> }
  | { name?: string; type: 'memoryPool' }
  | { name?: string; type: 'function' };

export type CounterUnit = 'bytes' | 'alignedBytes' | 'count' | 'statistics';
export type ErrorKind = 'logic' | 'oom' | 'range' | 'value' | 'cuda';
export type Backend = 'host' | 'fake' | 'gpu';

/** One registered resource, every default filled in (see docs/package-layout.md). */
export interface Registration {
  package: string;
  /** The package's folder (undefined when read from a manifest alone). */
  directory: string | undefined;
  class: string;
  kind: 'base' | 'adaptor' | 'suballocator';
  upstreams: 0 | 1;
  python: string[] | null;
  arguments: Argument[];
  umbrella: string;
  types: string[];
  exports: string[];
  members: string[];
  example: unknown[] | undefined;
  needs: ('cuda' | 'pageableMemoryAccess')[];
  hostAccessible: boolean | undefined;
  managed: boolean;
  equalInstances: boolean;
  freesAnything: boolean;
  callsJavaScript: 'always' | 'onFailure' | undefined;
  counters: Record<string, CounterUnit>;
  cannot: Record<string, { on: Backend[]; why: string }>;
  errors: ErrorKind[];
}

export class RegistrationError extends Error {}
export const repositoryRoot: string;
export const PACKAGE_FOLDER: string;
export function registrationsOf(manifest: Record<string, unknown>, directory?: string): Registration[];
export function workspacePackages(root?: string): { directory: string; manifest: Record<string, any> }[];
export function workspaceRegistrations(root?: string): Registration[];
export function registrationsOfDependencies(fromDirectory: string, names: string[]): Registration[];
export function shortName(className: string): string;
export function importResource(registration: Registration): Promise<new (...args: any[]) => any>;
export function importPackage(registration: Registration): Promise<Record<string, any>>;
export function exampleArguments(
  registration: Registration,
  options?: { budget?: number; memoryPool?: () => bigint },
): unknown[] | undefined;
