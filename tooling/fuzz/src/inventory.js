// The public surface of every package under packages/, read from the packages themselves: each
// entry point in package.json's `exports` (not `./internal`, which says it is not a public API,
// nor `./package.json`), each export, and for classes their constructor, static members and
// prototype methods and getters. A new export appears here and fails the coverage check until a
// model calls it.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { workspacePackages } from '@rmmjs/registry';

const here = dirname(fileURLToPath(import.meta.url));
export const repositoryRoot = join(here, '..', '..', '..');

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

/** Imports an entry point of a workspace package as its own package resolves it (its build). */
export async function importEntryPoint(entry) {
  const name = entry
    .split('/')
    .slice(0, entry.startsWith('@') ? 2 : 1)
    .join('/');
  const found = workspacePackages().find(({ manifest }) => manifest.name === name);
  if (found === undefined) throw new Error(`${entry} is not the entry point of a package under packages/`);
  return import(pathToFileURL(createRequire(join(found.directory, 'package.json')).resolve(entry)).href);
}

const isClass = (value) => typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
// Node 20 names Symbol.dispose 'nodejs.dispose'.
const keyName = (key) =>
  key === Symbol.dispose ? '[Symbol.dispose]' : typeof key === 'symbol' ? `[${key.description}]` : key;

// A namespace: a module namespace object (`export * as mr`, null prototype) or a plain object
// (`cuda`) with functions among its members; its members are expanded as top-level exports are.
function isNamespace(value) {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return (proto === null || proto === Object.prototype) && Object.values(value).some((v) => typeof v === 'function');
}

/**
 * Every surface item of one module as `{ key, id, member, name }`: `id` is the value the key
 * calls (a function, a class or an object; a primitive is only ever itself under the same name),
 * `member` what of it (`.new`, `.static`, `#method`, or '' for the value itself) and `name` the
 * name it is exported under (in its namespace).
 */
export function itemsOf(entry, module) {
  const items = [];
  const walk = (prefix, object, seen) => {
    for (const [name, value] of Object.entries(object)) {
      const path = `${prefix}${name}`;
      if (isClass(value)) {
        items.push({ key: `${entry}:${path}.new`, id: value, member: '.new', name });
        for (const key of Reflect.ownKeys(value)) {
          if (['length', 'name', 'prototype'].includes(key)) continue;
          items.push({ key: `${entry}:${path}.${keyName(key)}`, id: value, member: `.${keyName(key)}`, name });
        }
        for (const key of Reflect.ownKeys(value.prototype)) {
          if (key === 'constructor') continue;
          items.push({ key: `${entry}:${path}#${keyName(key)}`, id: value, member: `#${keyName(key)}`, name });
        }
      } else if (isNamespace(value) && !seen.has(value)) {
        // A module namespace lists every member; a plain object (`cuda`), its functions.
        const members = Object.getPrototypeOf(value) === null ? value : functionsOf(value);
        walk(`${path}.`, members, new Set([...seen, value]));
      } else {
        const primitive = (typeof value !== 'object' && typeof value !== 'function') || value === null;
        const id = primitive ? `${typeof value}:${String(value)}:${name}` : value;
        items.push({ key: `${entry}:${path}`, id, member: '', name });
      }
    }
  };
  walk('', module, new Set([module]));
  return items;
}

function functionsOf(object) {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => typeof value === 'function'));
}

/**
 * Every coverage key of one module: `entry:Name`, `entry:Class.new`, `entry:Class#method`,
 * `entry:Class.static`, `entry:object.fn`, and in a namespace `entry:ns.Member` (`entry:ns.Class.new`, ...).
 */
export function surfaceOf(entry, module) {
  return itemsOf(entry, module).map((item) => item.key);
}

/** Each package's name -> the packages it depends on, directly or not (dependencies and peerDependencies). */
function dependencyClosure() {
  const dir = join(repositoryRoot, 'packages');
  const direct = new Map();
  for (const folder of readdirSync(dir)) {
    const manifestPath = join(dir, folder, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    const names = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    direct.set(manifest.name, names);
  }
  const closure = new Map();
  const reach = (name, seen = new Set()) => {
    if (closure.has(name)) return closure.get(name);
    const all = new Set();
    for (const dep of direct.get(name) ?? []) {
      if (seen.has(dep)) continue;
      all.add(dep);
      for (const d of reach(dep, new Set([...seen, name]))) all.add(d);
    }
    closure.set(name, all);
    return all;
  };
  for (const name of direct.keys()) reach(name);
  return closure;
}

/**
 * The canonical entry point of a value several entry points export: the one whose package the
 * others' packages depend on (its own package, when it re-exports one of its own entry points'
 * values, first in `points` order). When none is depended on by all, the one that depends on none
 * of the others, first in order.
 */
function canonicalEntry(entries, points, closure) {
  const packageOf = new Map(points.map((point) => [point.entry, point.name]));
  const order = new Map(points.map((point, i) => [point.entry, i]));
  const sorted = [...entries].sort((a, b) => order.get(a) - order.get(b));
  const under = (a, b) => packageOf.get(a) === packageOf.get(b) || closure.get(packageOf.get(b))?.has(packageOf.get(a));
  return (
    sorted.find((a) => sorted.every((b) => under(a, b))) ??
    sorted.find((a) => !sorted.some((b) => b !== a && closure.get(packageOf.get(a))?.has(packageOf.get(b)))) ??
    sorted[0]
  );
}

/**
 * The surface, each item once: a value (the same object) that several entry points export is one
 * item, named by its canonical key (see canonicalEntry); the other keys are its aliases, and a
 * model that covers the canonical key covers them. Returns `{ keys, aliases }`: the canonical keys,
 * and a Map of each alias key to its canonical key.
 */
export function resolveAliases(surfaces, points = entryPoints(), closure = dependencyClosure()) {
  const groups = new Map(); // id -> member -> [{ entry, key }]
  const all = [];
  for (const [entry, items] of surfaces) {
    for (const item of items) {
      all.push(item);
      item.entry = entry;
      let byMember = groups.get(item.id);
      if (byMember === undefined) groups.set(item.id, (byMember = new Map()));
      if (!byMember.has(item.member)) byMember.set(item.member, []);
      byMember.get(item.member).push(item);
    }
  }
  const aliases = new Map();
  for (const byMember of groups.values()) {
    for (const items of byMember.values()) {
      const entries = new Set(items.map((item) => item.entry));
      if (entries.size < 2) continue;
      const canonical = canonicalEntry(entries, points, closure);
      const own = items.filter((item) => item.entry === canonical);
      for (const item of items) {
        if (item.entry === canonical) continue;
        // The canonical key with the same name when there is one (LevelEnum, LoggingLevel), else the first.
        const target = own.find((o) => o.name === item.name) ?? own[0];
        aliases.set(item.key, target.key);
      }
    }
  }
  return { keys: all.map((item) => item.key).filter((key) => !aliases.has(key)), aliases };
}

/**
 * The whole surface: `keys`, every surface item once by its canonical key; `aliases`, each other
 * key of an item -> its canonical key; `modules`, by entry point.
 */
export async function inventory() {
  const modules = {};
  const points = entryPoints();
  const surfaces = [];
  for (const { entry } of points) {
    modules[entry] = await importEntryPoint(entry);
    surfaces.push([entry, itemsOf(entry, modules[entry])]);
  }
  return { modules, ...resolveAliases(surfaces, points) };
}

/** The keys of `keys` that no model covers (a model covering a canonical key covers its aliases). */
export function uncovered(keys, models, aliases = new Map()) {
  const covered = new Set(models.flatMap((model) => model.covers));
  return keys.filter((key) => !covered.has(aliases.get(key) ?? key));
}
