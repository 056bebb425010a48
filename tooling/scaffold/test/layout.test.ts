// The packages in the workspace still match what the scaffold stamps: the first lines of every
// addon's CMakeLists.txt, the shared fields of every resource package's package.json, and every
// addon package's tsconfig.json. A package that drifts fails here; change src/layout.js (and so the
// template) and every package together instead.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registrationsOf, workspacePackages } from '@rmmjs/registry';
import { describe, expect, it } from 'vitest';
import { SHARED_FIELDS, cmakePrelude, packageManifest, sharedDevDependencies } from '../src/layout.js';

const template = (file: string) =>
  readFileSync(fileURLToPath(new URL(`../templates/common/${file}.tmpl`, import.meta.url)), 'utf8');
const addons = workspacePackages().filter(
  ({ directory, manifest }) => existsSync(join(directory, 'CMakeLists.txt')) && manifest.name !== '@rmmjs/core',
);
const resourcePackages = addons.filter(({ directory, manifest }) => registrationsOf(manifest, directory).length > 0);
const shared = (manifest: Record<string, unknown>) =>
  Object.fromEntries(SHARED_FIELDS.map((field) => [field, manifest[field]]));

describe('the packages match the scaffold', () => {
  it('has addon packages and resource packages to check (a new package adds to them)', () => {
    expect(addons.length).toBeGreaterThanOrEqual(14);
    expect(resourcePackages.length).toBeGreaterThanOrEqual(11);
  });

  it.each(addons.map((p) => [p.manifest.name, p]))(
    '%s: CMakeLists.txt starts as the template does',
    (_, { directory }) => {
      const lines = readFileSync(join(directory, 'CMakeLists.txt'), 'utf8').split('\n');
      const [, target, languages] = /^project\((\S+) (.+)\)$/.exec(lines[1]) ?? [];
      expect(lines.slice(0, 6)).toEqual(cmakePrelude(target, languages));
    },
  );

  it.each(addons.map((p) => [p.manifest.name, p]))('%s: tsconfig.json is the template', (_, { directory }) => {
    expect(readFileSync(join(directory, 'tsconfig.json'), 'utf8')).toBe(template('tsconfig.json'));
  });

  it.each(resourcePackages.map((p) => [p.manifest.name, p]))(
    '%s: package.json has the shared fields and tools of the template',
    (_, { directory, manifest }) => {
      const made = packageManifest({
        name: manifest.name,
        folder: directory.split('/').at(-1)!,
        description: manifest.description,
        resources: manifest.rmmjs.resources,
      });
      expect(shared(manifest)).toEqual(shared(made));
      expect(sharedDevDependencies(manifest)).toEqual(sharedDevDependencies(made));
    },
  );
});
