export const KINDS: { adaptor: string; suballocator: string };
export class NameError extends Error {}
export interface Names {
  kind: 'adaptor' | 'suballocator';
  folder: string;
  package: string;
  className: string;
  shortName: string;
  file: string;
  snake: string;
  target: string;
}
export function namesFor(name: string, kind: string): Names;
