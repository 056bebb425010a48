// workspace.mjs: the packages read from pnpm-workspace.yaml, the tested ones, and what a
// `name,name,...` list picks (as test-gpu.mjs, asan.mjs and sanitize-gpu.mjs read it).
import { describe, expect, it } from 'vitest';
import { packageSelector, testedPackages, workspacePackages } from '../workspace.mjs';

describe('workspace.mjs', () => {
  it('lists the packages of packages/ and tooling/, and the tested ones among them', () => {
    const names = workspacePackages().map((p: { name: string }) => p.name);
    expect(names).toContain('@rmmjs/core');
    expect(names).toContain('@rmmjs/scripts');
    expect(names).toContain('@rmmjs/tsconfig');
    const tested = testedPackages().map((p: { name: string }) => p.name);
    expect(tested).toContain('@rmmjs/scripts');
    expect(tested).not.toContain('@rmmjs/tsconfig');
  });

  it('picks by whole name, else by part of a name; all without a list', () => {
    const picks = (list: string | undefined) =>
      workspacePackages()
        .map((p: { name: string }) => p.name)
        .filter(packageSelector(list));
    expect(picks('rmmjs')).toEqual(['rmmjs']);
    expect(picks('pool,@rmmjs/core')).toEqual(['@rmmjs/core', '@rmmjs/pool']);
    expect(picks('no-such-package')).toEqual([]);
    expect(picks(undefined)).toEqual(workspacePackages().map((p: { name: string }) => p.name));
  });
});
