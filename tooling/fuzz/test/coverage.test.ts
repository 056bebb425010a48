// Every export of every package under packages/ has a model (a new export fails here until one
// is written: see README.md), and every model names only exports that exist.
import { describe, expect, it } from 'vitest';
import { allModels } from '../src/engine.js';
import { entryPoints, inventory } from '../src/inventory.js';

describe('the models cover the packages', () => {
  it('reads the exports of every package under packages/', async () => {
    const names = new Set(entryPoints().map((point: { name: string }) => point.name));
    expect(names.has('@rmmjs/core')).toBe(true);
    expect(names.size).toBeGreaterThanOrEqual(12);
  });

  it('every export, constructor, static member, method and getter has a model', async () => {
    const { keys } = await inventory();
    const covered = new Set(allModels().flatMap((model: { covers: string[] }) => model.covers));
    expect(keys.filter((key: string) => !covered.has(key))).toEqual([]);
  });

  it('every key a model names exists', async () => {
    const { keys } = await inventory();
    const surface = new Set(keys);
    const named = allModels().flatMap((model: { covers: string[] }) => model.covers);
    expect(named.filter((key: string) => !surface.has(key))).toEqual([]);
  });
});
