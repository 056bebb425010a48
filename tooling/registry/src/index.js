// The resource registrations: each package.json of the workspace may hold a block
//
//   "rmmjs": { "resources": [{ "class": "LimitingResourceAdaptor", "kind": "adaptor", ... }] }
//
// that says, once, what every tool needs to know of the resources the package exports (the fields
// are in docs/package-layout.md, "The resource registration"). This module reads and checks them;
// the umbrella's namespaces, the test tables, the fuzzer, the stress stacks, the docs' tables and the
// scaffold read them from here.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RegistrationError, checkRegistration } from './check.js';

export { RegistrationError };

/** The repository's root (this package is tooling/registry). */
export const repositoryRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The folders that hold the published packages, relative to the root. */
export const PACKAGE_FOLDER = 'packages';

/** The registrations in one manifest (a parsed package.json), checked and with every default filled in. */
export function registrationsOf(manifest, directory = undefined) {
  const block = manifest.rmmjs;
  if (block === undefined) return [];
  const where = `${manifest.name}'s package.json`;
  if (typeof block !== 'object' || block === null || Array.isArray(block))
    throw new RegistrationError(`${where}: "rmmjs" must be an object`);
  for (const key of Object.keys(block))
    if (key !== 'resources') throw new RegistrationError(`${where}: "rmmjs" has an unknown field "${key}" (resources)`);
  if (!Array.isArray(block.resources)) throw new RegistrationError(`${where}: "rmmjs.resources" must be an array`);
  const seen = new Set();
  return block.resources.map((raw, index) => {
    const registration = checkRegistration(raw, `${where}, rmmjs.resources[${index}]`);
    if (seen.has(registration.class))
      throw new RegistrationError(`${where}: ${registration.class} is registered twice`);
    seen.add(registration.class);
    return { package: manifest.name, directory, ...registration };
  });
}

/** The manifests of the packages under `packages/`, in folder order: `{ directory, manifest }`. */
export function workspacePackages(root = repositoryRoot) {
  const folder = join(root, PACKAGE_FOLDER);
  return readdirSync(folder)
    .sort()
    .map((name) => join(folder, name))
    .filter((directory) => existsSync(join(directory, 'package.json')))
    .map((directory) => ({ directory, manifest: JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) }));
}

/** Every registration of the workspace's packages, in folder order, then as each package lists them. */
export function workspaceRegistrations(root = repositoryRoot) {
  const all = workspacePackages(root).flatMap(({ directory, manifest }) => registrationsOf(manifest, directory));
  const byClass = new Map();
  for (const registration of all) {
    const other = byClass.get(registration.class);
    if (other !== undefined)
      throw new RegistrationError(
        `${registration.class} is registered by both ${other.package} and ${registration.package}`,
      );
    byClass.set(registration.class, registration);
  }
  return all;
}

/** The registrations of the packages `fromDirectory`'s package resolves by these names (its dependencies). */
export function registrationsOfDependencies(fromDirectory, names) {
  const require = createRequire(join(fromDirectory, 'package.json'));
  return names.flatMap((name) => {
    const manifestPath = require.resolve(`${name}/package.json`);
    return registrationsOf(JSON.parse(readFileSync(manifestPath, 'utf8')), dirname(manifestPath));
  });
}

/** The name a stack spec uses: PoolMemoryResource -> Pool, LimitingResourceAdaptor -> Limiting. */
export function shortName(className) {
  return className.replace(/(MemoryResource|ResourceAdaptor)$/, '');
}

/**
 * The registered class itself, imported as its own package resolves its name (so the instance is
 * the one every other importer gets). The package must have been built.
 */
export async function importResource(registration) {
  const module = await importPackage(registration);
  const Class = module[registration.class];
  if (typeof Class !== 'function')
    throw new RegistrationError(`${registration.package} registers ${registration.class} but does not export it`);
  return Class;
}

/** The package of a registration (its main entry point). */
export function importPackage(registration) {
  if (registration.directory === undefined)
    throw new RegistrationError(`${registration.class}: its registration was read without its package's folder`);
  const path = createRequire(join(registration.directory, 'package.json')).resolve(registration.package);
  return import(pathToFileURL(path).href);
}

/**
 * A registration's `example` arguments, or undefined where it has none. A string "N%" is that share
 * of `budget` bytes (rounded down to a multiple of 256); a `memoryPool` argument is `memoryPool()`;
 * other values are as written.
 */
export function exampleArguments(registration, { budget, memoryPool } = {}) {
  if (registration.example === undefined) return undefined;
  const resolve = (value) => {
    if (typeof value === 'string' && /^\d+(\.\d+)?%$/.test(value)) {
      if (budget === undefined) throw new RegistrationError(`${registration.class}: its example needs a budget`);
      return Math.floor((budget * Number(value.slice(0, -1))) / 100 / 256) * 256;
    }
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, resolve(field)]));
    return value;
  };
  return registration.arguments
    .slice(0, Math.max(registration.example.length, poolArguments(registration)))
    .map((argument, i) => {
      if (argument.type !== 'memoryPool') return resolve(registration.example[i]);
      if (memoryPool === undefined)
        throw new RegistrationError(`${registration.class}: its example needs a memory pool`);
      return memoryPool();
    });
}

// How many leading arguments reach the last memoryPool argument (made, never written in an example).
const poolArguments = (registration) =>
  registration.arguments.findLastIndex((argument) => argument.type === 'memoryPool') + 1;
