// The entry point of third-party addons refuses bad arguments with Node's codes (found by the
// fuzzer in tooling/fuzz: each of these threw a bare error, or succeeded and broke later calls).
import {
  DeviceMemoryResource,
  RMMError,
  SystemMemoryResource,
  getCurrentDeviceResource,
  setCurrentDeviceResource,
} from '@rmmjs/core';
import { loadAddon, makeError, registerResourceClass, wrapResource } from '@rmmjs/core/addon';
import { thrown } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

function expectCode(fn: () => unknown, Class: ErrorConstructor | RangeErrorConstructor, code: string, name: string) {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(Class);
  expect(error.code).toBe(code);
  expect(error.message).toContain(name);
}

describe('loadAddon', () => {
  it('refuses arguments that are not strings, and a module URL that is not a file: URL', () => {
    const load = loadAddon as (...args: unknown[]) => unknown;
    expectCode(() => load(5, 'x.node', 'pkg'), TypeError, 'ERR_INVALID_ARG_TYPE', 'moduleUrl');
    expectCode(() => load(import.meta.url, null, 'pkg'), TypeError, 'ERR_INVALID_ARG_TYPE', 'packageDir');
    expectCode(() => load(import.meta.url, 'x.node', {}), TypeError, 'ERR_INVALID_ARG_TYPE', 'packageName');
    // A Proxy of a resource once ran the resource's toString on the Proxy (a bare TypeError).
    const proxy = new Proxy(getCurrentDeviceResource(), {});
    expectCode(() => load(proxy, 'x.node', 'pkg'), TypeError, 'ERR_INVALID_ARG_TYPE', 'moduleUrl');
    expectCode(() => load('not a url', 'x.node', 'pkg'), TypeError, 'ERR_INVALID_ARG_VALUE', 'moduleUrl');
    expectCode(
      () => load('https://example.com/a.js', 'x.node', 'pkg'),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'moduleUrl',
    );
  });

  it('takes the package directory, not the .node file (node-gyp-build finds it there)', () => {
    expectCode(
      () => loadAddon(import.meta.url, '../build/Release/rmmjs_core.node', 'pkg'),
      TypeError,
      'ERR_INVALID_ARG_VALUE',
      'packageDir',
    );
  });

  it('a directory without an addon is still the error that lists the fixes', () => {
    expect(() => loadAddon(import.meta.url, './missing', 'pkg')).toThrow(/^Could not load the native addon of pkg/);
  });
});

describe('makeError', () => {
  it('refuses a status, message, CUDA code or Node code of the wrong type', () => {
    const make = makeError as (...args: unknown[]) => unknown;
    expectCode(() => make('1', 'm', 0), TypeError, 'ERR_INVALID_ARG_TYPE', 'status');
    expectCode(() => make(1.5, 'm', 0), RangeError, 'ERR_OUT_OF_RANGE', 'status');
    expectCode(() => make(1, Symbol('m'), 0), TypeError, 'ERR_INVALID_ARG_TYPE', 'message');
    expectCode(() => make(1, 'm', 2n), TypeError, 'ERR_INVALID_ARG_TYPE', 'cudaCode');
    expectCode(() => make(4, 'm', 0, 5), TypeError, 'ERR_INVALID_ARG_TYPE', 'nodeCode');
  });

  it('still makes the error of each status', () => {
    expect(makeError(2, 'logic', 0)).toBeInstanceOf(RMMError);
    expect((makeError(4, 'bad', 0, 'ERR_INVALID_ARG_TYPE') as Error & { code: string }).code).toBe(
      'ERR_INVALID_ARG_TYPE',
    );
  });
});

describe('registerResourceClass', () => {
  it('refuses a type name that is not a string and a class that is not a resource class', () => {
    const register = registerResourceClass as (...args: unknown[]) => unknown;
    expectCode(() => register(5, SystemMemoryResource), TypeError, 'ERR_INVALID_ARG_TYPE', 'typeName');
    expectCode(() => register('', SystemMemoryResource), TypeError, 'ERR_INVALID_ARG_TYPE', 'typeName');
    for (const junk of [5, {}, null, () => {}, class NotAResource {}, DeviceMemoryResource]) {
      expectCode(() => register('SystemMemoryResource', junk), TypeError, 'ERR_INVALID_ARG_TYPE', 'Class');
    }
  });

  it('a refused registration leaves wrapping as it was', () => {
    const previous = getCurrentDeviceResource();
    const Class = previous.constructor as new () => DeviceMemoryResource; // the default: System or Cuda
    expect(() => (registerResourceClass as (...args: unknown[]) => unknown)(Class.name, 5)).toThrow(TypeError);
    const mr = new Class();
    setCurrentDeviceResource(mr);
    mr[Symbol.dispose](); // the registry still holds it: the next wrapper is built from the registered class
    const again = getCurrentDeviceResource();
    try {
      expect(again).not.toBe(mr);
      expect(again).toBeInstanceOf(Class);
    } finally {
      setCurrentDeviceResource(previous);
      again[Symbol.dispose]();
    }
  });
});

describe('wrapResource', () => {
  // Found by the fuzzer (tooling/fuzz): null and undefined gave V8's bare "Cannot convert
  // undefined or null to object" (the type-tag check of every addon converted them).
  it('refuses what is not a resource handle, null and undefined included', () => {
    for (const junk of [null, undefined, 5, 'x', {}, Symbol('s')]) {
      expectCode(
        () => wrapResource(junk as never),
        TypeError,
        'ERR_INVALID_ARG_TYPE',
        'must be a DeviceMemoryResource',
      );
    }
  });
});
