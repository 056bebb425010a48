import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The version of an installed package (this one by default). */
export function packageVersion(name = '@rmmjs/cli'): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}
