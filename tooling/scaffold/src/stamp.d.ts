import type { Names } from './names.js';

export function renderTemplate(names: Names): { path: string; text: string }[];
export function renderChangeset(names: Names): string;
export function withUmbrellaDependency(manifestText: string, name: string): string;
export function stamp(
  name: string,
  kind: string,
  options?: { into?: string; workspace?: boolean; root?: string },
): { names: Names; directory: string; written: string[] };
