// The public surface of every package under packages/, read from the packages themselves: each
// entry point in package.json's `exports` (not `./internal`, which says it is not a public API,
// nor `./package.json`), each export, and for classes their constructor, static members and
// prototype methods and getters. A new export appears here and fails the coverage check until a
// model calls it.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repositoryRoot = join(here, '..', '..', '..');
const require = createRequire(join(here, '..', 'package.json'));

const privateEntryPoints = new Set(['./internal', './package.json']);

/** [{ name: '@rmmjs/core', entry: '@rmmjs/core/addon', label }] of every package under packages/. */
export function entryPoints() {
  const dir = join(repositoryRoot, 'packages');
  const points = [];
  for (const folder of readdirSync(dir).sort()) {
    const manifestPath = join(dir, folder, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const subpaths = manifest.exports === undefined ? ['.'] : Object.keys(manifest.exports);
    const programs = new Set(Object.values(manifest.bin ?? {}).map((path) => path.replace(/^\.\//, '')));
    for (const subpath of subpaths) {
      if (privateEntryPoints.has(subpath) || subpath.includes('*')) continue; // files, not modules
      const target = targetOf(manifest.exports?.[subpath]);
      if (target !== undefined && programs.has(target.replace(/^\.\//, ''))) continue; // a program, not an API
      const entry = subpath === '.' ? manifest.name : `${manifest.name}${subpath.slice(1)}`;
      points.push({ name: manifest.name, entry });
    }
  }
  return points;
}

/** The file an `exports` entry points to (its `default` condition), if it names one. */
function targetOf(entry) {
  if (typeof entry === 'string') return entry;
  if (typeof entry === 'object' && entry !== null) return targetOf(entry.default);
  return undefined;
}

/** Imports an entry point as this package resolves it (it must be a devDependency). */
export async function importEntryPoint(entry) {
  let path;
  try {
    path = require.resolve(entry);
  } catch {
    throw new Error(
      `${entry} is not a devDependency of @rmmjs/fuzz: add it to tooling/fuzz/package.json and write its models`,
    );
  }
  return import(pathToFileURL(path).href);
}

const isClass = (value) => typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
// Node 20 names Symbol.dispose 'nodejs.dispose'.
const keyName = (key) =>
  key === Symbol.dispose ? '[Symbol.dispose]' : typeof key === 'symbol' ? `[${key.description}]` : key;

/** Every coverage key of one module: `entry:Name`, `entry:Class.new`, `entry:Class#method`, `entry:Class.static`, `entry:object.fn`. */
export function surfaceOf(entry, module) {
  const keys = [];
  for (const [name, value] of Object.entries(module)) {
    if (isClass(value)) {
      keys.push(`${entry}:${name}.new`);
      for (const key of Reflect.ownKeys(value)) {
        if (['length', 'name', 'prototype'].includes(key)) continue;
        keys.push(`${entry}:${name}.${keyName(key)}`);
      }
      for (const key of Reflect.ownKeys(value.prototype)) {
        if (key === 'constructor') continue;
        keys.push(`${entry}:${name}#${keyName(key)}`);
      }
    } else if (
      typeof value === 'object' &&
      value !== null &&
      Object.getPrototypeOf(value) === Object.prototype &&
      Object.values(value).some((v) => typeof v === 'function')
    ) {
      for (const [member, fn] of Object.entries(value))
        if (typeof fn === 'function') keys.push(`${entry}:${name}.${member}`);
    } else {
      keys.push(`${entry}:${name}`);
    }
  }
  return keys;
}

/** The whole surface: every key, and the modules by entry point. */
export async function inventory() {
  const modules = {};
  const keys = [];
  for (const { entry } of entryPoints()) {
    modules[entry] = await importEntryPoint(entry);
    keys.push(...surfaceOf(entry, modules[entry]));
  }
  return { modules, keys };
}
