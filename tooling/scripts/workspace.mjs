// The workspace's packages, read from pnpm-workspace.yaml's simple `- dir/*` globs (no pnpm needed).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

export function workspacePackages() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [...yaml.matchAll(/^\s*-\s*['"]?([^'"\n]+?)\/\*['"]?\s*$/gm)].map((m) => m[1]);
  const packages = [];
  for (const base of globs) {
    const dir = join(root, base);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const manifest = join(dir, name, 'package.json');
      if (!existsSync(manifest)) continue;
      const json = JSON.parse(readFileSync(manifest, 'utf8'));
      packages.push({ name: json.name, dir: join(dir, name), manifest: json });
    }
  }
  return packages;
}

/** Packages whose `test` script runs rmmjs-test. */
export function testedPackages() {
  return workspacePackages().filter((p) => p.manifest.scripts?.test?.includes('rmmjs-test'));
}

/**
 * Which packages a `name,name,...` argument picks (all when it is undefined): a part that is a
 * package's whole name picks that package alone (`rmmjs`, the umbrella, is in every name); any
 * other part picks the packages whose name contains it (`pool` picks @rmmjs/pool).
 */
export function packageSelector(list) {
  if (list === undefined) return () => true;
  const parts = list.split(',');
  const names = new Set(workspacePackages().map((p) => p.name));
  return (name) => parts.some((part) => (names.has(part) ? name === part : name.includes(part)));
}
