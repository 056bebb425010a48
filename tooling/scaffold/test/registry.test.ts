// @rmmjs/registry: the registrations of the workspace, and every way a registration is refused.
// (Its tests live here: @rmmjs/test-helpers depends on the registry, so the registry cannot run
// the suites itself.)
import {
  RegistrationError,
  exampleArguments,
  registrationsOf,
  registrationsOfDependencies,
  repositoryRoot,
  shortName,
  workspaceRegistrations,
} from '@rmmjs/registry';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const manifest = (resources: unknown, name = '@rmmjs/x') => ({ name, rmmjs: { resources } });
const valid = { class: 'XResourceAdaptor', kind: 'adaptor', python: null, arguments: [] };
const refusal = (resource: Record<string, unknown>) => {
  try {
    registrationsOf(manifest([resource]));
  } catch (error) {
    expect(error).toBeInstanceOf(RegistrationError);
    return (error as Error).message;
  }
  throw new Error('the registration was taken');
};
const where = "@rmmjs/x's package.json, rmmjs.resources[0]";

describe('the workspace', () => {
  it('registers every resource of the packages, once', () => {
    // What the packages' own package.json files say, read here without the registry.
    const declared = readdirSync(join(repositoryRoot, 'packages'))
      .map((folder) => join(repositoryRoot, 'packages', folder, 'package.json'))
      .filter((path) => existsSync(path))
      .map((path) => JSON.parse(readFileSync(path, 'utf8')))
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((p) => (p.rmmjs?.resources ?? []).map((r: any) => `${p.name}:${r.class}:${r.kind}`));
    const found = workspaceRegistrations().map((r) => `${r.package}:${r.class}:${r.kind}`);
    expect(found).toEqual(declared);
    // A new package adds its own; these stay.
    expect(found).toEqual(
      expect.arrayContaining([
        '@rmmjs/arena:ArenaMemoryResource:suballocator',
        '@rmmjs/binning:BinningMemoryResource:suballocator',
        '@rmmjs/callback:CallbackMemoryResource:base',
        '@rmmjs/core:CudaMemoryResource:base',
        '@rmmjs/core:ManagedMemoryResource:base',
        '@rmmjs/core:SystemMemoryResource:base',
        '@rmmjs/core:SamHeadroomMemoryResource:base',
        '@rmmjs/core:PinnedHostMemoryResource:base',
        '@rmmjs/core:CudaAsyncMemoryResource:base',
        '@rmmjs/core:CudaAsyncViewMemoryResource:base',
        '@rmmjs/failure-callback:FailureCallbackResourceAdaptor:adaptor',
        '@rmmjs/fixed-size:FixedSizeMemoryResource:suballocator',
        '@rmmjs/limiting:LimitingResourceAdaptor:adaptor',
        '@rmmjs/logging:LoggingResourceAdaptor:adaptor',
        '@rmmjs/pool:PoolMemoryResource:suballocator',
        '@rmmjs/prefetch:PrefetchResourceAdaptor:adaptor',
        '@rmmjs/statistics:StatisticsResourceAdaptor:adaptor',
        '@rmmjs/tracking:TrackingResourceAdaptor:adaptor',
      ]),
    );
  });

  it('fills in the defaults', () => {
    const prefetch = workspaceRegistrations().find((r) => r.class === 'PrefetchResourceAdaptor');
    expect(prefetch).toEqual({
      package: '@rmmjs/prefetch',
      directory: join(repositoryRoot, 'packages', 'prefetch'),
      class: 'PrefetchResourceAdaptor',
      kind: 'adaptor',
      upstreams: 1,
      python: ['PrefetchResourceAdaptor(upstream_mr)'],
      arguments: [],
      umbrella: 'mr',
      types: [],
      exports: [],
      members: [],
      example: [],
      needs: [],
      hostAccessible: undefined,
      managed: false,
      equalInstances: false,
      freesAnything: false,
      callsJavaScript: undefined,
      counters: {},
      cannot: {},
      errors: [],
    });
  });

  it('reads the registrations of the packages a package depends on', () => {
    const names = registrationsOfDependencies(join(repositoryRoot, 'packages', 'rmmjs'), [
      '@rmmjs/pool',
      '@rmmjs/core',
    ]);
    expect(names.map((r) => r.class)).toEqual([
      'PoolMemoryResource',
      'CudaMemoryResource',
      'ManagedMemoryResource',
      'SystemMemoryResource',
      'SamHeadroomMemoryResource',
      'PinnedHostMemoryResource',
      'CudaAsyncMemoryResource',
      'CudaAsyncViewMemoryResource',
    ]);
  });

  it('names stack layers after the class', () => {
    expect(['PoolMemoryResource', 'LimitingResourceAdaptor', 'Odd'].map(shortName)).toEqual([
      'Pool',
      'Limiting',
      'Odd',
    ]);
  });
});

describe('a registration', () => {
  it('is refused with a message that names the package and the field', () => {
    expect(refusal({ ...valid, kinds: 'adaptor' })).toBe(
      `${where}: unknown field "kinds" (class, kind, python, arguments, umbrella, types, exports, members, example, needs, hostAccessible, managed, equalInstances, freesAnything, callsJavaScript, counters, cannot, errors)`,
    );
    expect(refusal({ class: 'XResourceAdaptor', kind: 'adaptor', python: null })).toBe(
      `${where}: "arguments" is required (a list of the constructor's arguments after the upstream)`,
    );
    expect(refusal({ ...valid, kind: 'layer' })).toBe(
      `${where}: "kind" must be one of "base", "adaptor", "suballocator", not "layer"`,
    );
    expect(refusal({ ...valid, class: 'Pool' })).toBe(
      `${where}: "class" must be a class name ending in MemoryResource or ResourceAdaptor, not "Pool"`,
    );
    expect(refusal({ ...valid, needs: ['gpu'] })).toBe(
      `${where}: "needs" must be a list of "cuda", "pageableMemoryAccess", not ["gpu"]`,
    );
    expect(refusal({ ...valid, counters: { getAllocatedBytes: 'bits' } })).toBe(
      `${where}: "counters" must be an object of member names to one of "bytes", "alignedBytes", "count", "statistics", not {"getAllocatedBytes":"bits"}`,
    );
    expect(refusal({ ...valid, hostAccessible: true })).toBe(`${where}: "hostAccessible" is for base resources only`);
    expect(refusal({ ...valid, example: [1] })).toBe(`${where}: "example" has 1 arguments, the constructor 0`);
    expect(refusal({ ...valid, cannot: { outOfMemory: { on: ['tpu'], why: 'x' } } })).toMatch(/"cannot" must be/);
  });

  it('has arguments of the known types, each with its own fields', () => {
    const argument = (arg: unknown) => refusal({ ...valid, arguments: [arg] });
    const at = `${where}, arguments[0]`;
    expect(argument({ name: 'n', type: 'number' })).toBe(
      `${at}: "type" must be one of "size", "integer", "boolean", "fileName", "options", "memoryPool", "function"`,
    );
    expect(argument({ type: 'size' })).toBe(`${at}: "name" must be the argument's name`);
    expect(argument({ name: 'n', type: 'integer', min: 0 })).toBe(`${at}: "max" is required for a integer argument`);
    expect(argument({ name: 'n', type: 'boolean', bytes: true })).toBe(
      `${at}: unknown field "bytes" for a boolean argument`,
    );
    expect(argument({ name: 'n', type: 'size', min: 0.5 })).toBe(`${at}: "min" must be a whole number`);
    expect(argument({ name: 'o', type: 'options', fields: {} })).toBe(
      `${at}: "fields" must be an object of option names to arguments`,
    );
    expect(argument({ name: 'o', type: 'options', fields: { a: { type: 'size', name: 'a' } } })).toBe(
      `${at}, fields.a: unknown field "name" for a size argument`,
    );
  });

  it('is refused when a package registers a class twice', () => {
    expect(() => registrationsOf(manifest([valid, valid]))).toThrow(
      new RegistrationError("@rmmjs/x's package.json: XResourceAdaptor is registered twice"),
    );
    expect(() => registrationsOf({ name: '@rmmjs/x', rmmjs: { resource: [] } })).toThrow(
      new RegistrationError(`@rmmjs/x's package.json: "rmmjs" has an unknown field "resource" (resources)`),
    );
  });
});

describe('example arguments', () => {
  const registration = (
    example: unknown[],
    args: unknown[] = example.map((_, i) => ({ name: `a${i}`, type: 'size' })),
  ) => registrationsOf(manifest([{ ...valid, arguments: args, example }]))[0];

  it('are shares of a budget, rounded down to 256 bytes, or as written', () => {
    const options = { name: 'o', type: 'options', fields: { a: { type: 'size' }, b: { type: 'boolean' } } };
    expect(
      exampleArguments(
        registration(
          ['25%', 7, { a: '100%', b: true }],
          [{ name: 'x', type: 'size' }, { name: 'y', type: 'size' }, options],
        ),
        { budget: 1000 },
      ),
    ).toEqual([0, 7, { a: 768, b: true }]);
    expect(exampleArguments(registration(['12.5%']), { budget: 64 * 1024 * 1024 })).toEqual([8 * 1024 * 1024]);
    expect(() => exampleArguments(registration(['25%']))).toThrow('XResourceAdaptor: its example needs a budget');
  });

  it('make a memory pool argument with the function given', () => {
    const view = registration([], [{ name: 'poolHandle', type: 'memoryPool' }]);
    expect(exampleArguments(view, { memoryPool: () => 42n })).toEqual([42n]);
    expect(() => exampleArguments(view)).toThrow('XResourceAdaptor: its example needs a memory pool');
  });

  it('are undefined where the registration has none', () => {
    const { example, ...without } = registration([]);
    expect(example).toEqual([]);
    expect(exampleArguments({ ...without, example: undefined })).toBeUndefined();
  });
});
