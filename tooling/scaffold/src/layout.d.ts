export function cmakePrelude(target: string, languages?: string): string[];
export function cmakeLists(target: string, sources: string[]): string;
export function packageManifest(options: {
  name: string;
  folder: string;
  description: string;
  resources: unknown[];
}): Record<string, any>;
export const SHARED_FIELDS: string[];
export function sharedDevDependencies(manifest: Record<string, any>): Record<string, string>;
