// Every export of every package under packages/ has a model (a new export fails here until one
// is written: see README.md), and every model names only exports that exist. A value several
// entry points export (the umbrella `rmmjs` re-exports the packages' classes and functions, at
// top level and in its namespaces `mr`, `statistics`, `allocators`, `interop`) is one surface
// item: a model names its canonical key (the entry point the others depend on) and covers its
// aliases with it; a value only the umbrella has (`reinitialize`) needs a model of its own.
import { describe, expect, it } from 'vitest';
import { allModels } from '../src/engine.js';
import { entryPoints, inventory, uncovered } from '../src/inventory.js';

describe('the models cover the packages', () => {
  it('reads the exports of every package under packages/', async () => {
    const names = new Set(entryPoints().map((point: { name: string }) => point.name));
    expect(names.has('@rmmjs/core')).toBe(true);
    expect(names.has('rmmjs')).toBe(true);
    expect(names.size).toBeGreaterThanOrEqual(12);
  });

  it('every export, constructor, static member, method and getter has a model', async () => {
    const { keys, aliases } = await inventory();
    expect(uncovered(keys, allModels(), aliases)).toEqual([]);
    // The aliases are covered through their canonical keys.
    expect(uncovered([...aliases.keys()], allModels(), aliases)).toEqual([]);
  });

  it('every key a model names exists, by its canonical key', async () => {
    const { keys, aliases } = await inventory();
    const surface = new Set(keys);
    const named = allModels().flatMap((model: { covers: string[] }) => model.covers);
    const unknown = named.filter((key: string) => !surface.has(key));
    expect(
      unknown.map((key: string) => (aliases.has(key) ? `${key} (an alias: name ${aliases.get(key)})` : key)),
    ).toEqual([]);
  });
});
