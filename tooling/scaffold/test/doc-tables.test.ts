// The docs' tables made from the registrations: up to date, and what their rows say.
import { constructorSignature, replaceTable, updateDocTables } from '@rmmjs/registry/doc-tables';
import { workspaceRegistrations } from '@rmmjs/registry';
import { describe, expect, it } from 'vitest';

const byClass = (name: string) => workspaceRegistrations().find((r) => r.class === name)!;

describe('the docs tables', () => {
  it('are up to date in README.md and docs/rmm-python-to-rmmjs.md (else: pnpm run docs:tables)', () => {
    expect(updateDocTables()).toEqual([]);
  });

  it('show each constructor as it is called', () => {
    expect(constructorSignature(byClass('PoolMemoryResource'))).toBe(
      'new PoolMemoryResource(upstream, { initialPoolSize?, maximumPoolSize? })',
    );
    expect(constructorSignature(byClass('LimitingResourceAdaptor'))).toBe(
      'new LimitingResourceAdaptor(upstream, allocationLimit)',
    );
    expect(constructorSignature(byClass('CallbackMemoryResource'))).toBe(
      'new CallbackMemoryResource(allocate, deallocate)',
    );
    expect(constructorSignature(byClass('CudaMemoryResource'))).toBe('new CudaMemoryResource()');
  });

  it('are replaced between their markers, and a missing marker is an error', () => {
    const begin = "<!-- BEGIN t: generated from the packages' manifests by `pnpm run docs:tables` -->";
    const text = `intro\n${begin}\n| old |\n<!-- END t -->\nafter\n`;
    expect(replaceTable(text, 't', ['| a |', '| b |'], 'X.md')).toBe(
      `intro\n${begin}\n| a |\n| b |\n<!-- END t -->\nafter\n`,
    );
    expect(() => replaceTable('intro\n', 't', [], 'X.md')).toThrow(
      `X.md: no table "t" (it stands between the lines "${begin}" and "<!-- END t -->")`,
    );
  });
});
