// The inventory's alias rule: a value several entry points export is one surface item, named by
// the entry point whose package the others depend on; a value only one entry point has is its own.
import { describe, expect, it } from 'vitest';
import { inventory, itemsOf, resolveAliases, surfaceOf, uncovered } from '../src/inventory.js';

const { keys, aliases } = await inventory();

describe('the surface and its aliases', () => {
  it("expands the umbrella's namespaces: a class in one expands as a top-level class", () => {
    const all = new Set([...keys, ...aliases.keys()]);
    for (const key of [
      'rmmjs:mr.PoolMemoryResource.new',
      'rmmjs:mr.PoolMemoryResource#poolSize',
      'rmmjs:statistics.statistics',
      'rmmjs:allocators.rmmAllocator',
      'rmmjs:interop.toDLPack',
      'rmmjs:interop.DLDeviceType',
      'rmmjs:mr.DEFAULT_BLOCK_SIZE',
      'rmmjs:cuda.isAvailable',
    ])
      expect(all.has(key), key).toBe(true);
    expect(all.has('rmmjs:mr')).toBe(false);
  });

  it('names a re-exported value by the entry point the umbrella depends on', () => {
    expect(aliases.get('rmmjs:mr.PoolMemoryResource.new')).toBe('@rmmjs/pool:PoolMemoryResource.new');
    expect(aliases.get('rmmjs:DeviceBuffer#copy')).toBe('@rmmjs/core:DeviceBuffer#copy');
    expect(aliases.get('rmmjs:mr.DeviceMemoryResource#allocate')).toBe('@rmmjs/core:DeviceMemoryResource#allocate');
    expect(aliases.get('rmmjs:cuda.setDevice')).toBe('@rmmjs/core:cuda.setDevice');
    expect(aliases.get('rmmjs:statistics.statistics')).toBe('@rmmjs/statistics:statistics');
    // The same object under two names in its package: each alias keeps its own name.
    expect(aliases.get('rmmjs:LoggingLevel')).toBe('@rmmjs/logging:LoggingLevel');
    expect(aliases.get('rmmjs:LevelEnum')).toBe('@rmmjs/logging:LevelEnum');
    expect(keys).toContain('@rmmjs/pool:PoolMemoryResource.new');
    expect(keys).not.toContain('rmmjs:mr.PoolMemoryResource.new');
  });

  it('keeps a value only the umbrella has as its own key', () => {
    expect(keys).toContain('rmmjs:reinitialize');
    expect(aliases.has('rmmjs:reinitialize')).toBe(false);
    // Without a model of its own it is reported, even when everything it re-exports is covered.
    const models = [{ covers: keys.filter((key: string) => key !== 'rmmjs:reinitialize') }];
    expect(uncovered(keys, models, aliases)).toEqual(['rmmjs:reinitialize']);
    expect(uncovered(['rmmjs:mr.PoolMemoryResource.new'], models, aliases)).toEqual([]);
  });

  it('follows the dependencies, not the order of the entry points', () => {
    class Shared {
      method() {}
    }
    const helper = () => {};
    const points = [
      { name: 'a', entry: 'a' },
      { name: 'b', entry: 'b' },
    ];
    const closure = new Map([
      ['a', new Set(['b'])],
      ['b', new Set()],
    ]);
    expect(surfaceOf('b', { Shared })).toEqual(['b:Shared.new', 'b:Shared#method']);
    const a = { ns: Object.assign(Object.create(null), { Shared, helper }), own: () => {}, LIMIT: 4, OTHER: 4 };
    const b = { Shared, helper, LIMIT: 4 };
    const result = resolveAliases(
      [
        ['a', itemsOf('a', a)],
        ['b', itemsOf('b', b)],
      ],
      points,
      closure,
    );
    expect(Object.fromEntries(result.aliases)).toEqual({
      'a:ns.Shared.new': 'b:Shared.new',
      'a:ns.Shared#method': 'b:Shared#method',
      'a:ns.helper': 'b:helper',
      'a:LIMIT': 'b:LIMIT',
    });
    // A primitive is an alias only under the same name (not every 4 is LIMIT).
    expect(result.keys.sort()).toEqual(['a:OTHER', 'a:own', 'b:LIMIT', 'b:Shared#method', 'b:Shared.new', 'b:helper']);
  });
});
