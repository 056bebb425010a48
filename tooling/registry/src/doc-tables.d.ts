import type { Registration } from './index.js';

export function constructorSignature(registration: Registration): string;
export function resourceRows(registrations: Registration[]): string[];
export function packageRows(
  packages: { manifest: { name: string; description: string }; registrations: Registration[] }[],
): string[];
export function docTables(root?: string): { file: string; name: string; rows: string[] }[];
export function replaceTable(text: string, name: string, rows: string[], file: string): string;
export function updateDocTables(options?: { root?: string; write?: boolean }): string[];
