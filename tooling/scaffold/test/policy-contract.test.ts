// Core's stream-ordered policy contract (rmmjs/stream_ordered_policy.hpp) holds at compile time: the
// suballocator template's policy compiles as it is, and with a member taken out (or HandOut not
// noexcept) it does not, with the static_assert that names that member.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { namesFor } from '../src/names.js';
import { renderTemplate } from '../src/stamp.js';

const coreInclude = fileURLToPath(new URL('../../../packages/core/include', import.meta.url));
const names = namesFor('contract', 'suballocator');
const header = renderTemplate(names).find((file) => file.path === `src/native/${names.snake}.h`)!.text;

// The header without the member function that starts with `signature` (to its closing brace).
function without(text: string, signature: string): string {
  const start = text.indexOf(`  ${signature}`);
  const end = text.indexOf('\n  }\n', start);
  if (start < 0 || end < 0) throw new Error(`the template's policy has no ${signature}`);
  return text.slice(0, start) + text.slice(end + '\n  }\n'.length);
}

const folder = mkdtempSync(join(tmpdir(), 'rmmjs-policy-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// Compiles the policy in `text` with a use that instantiates the resource, as an addon's create does.
function compile(text: string) {
  writeFileSync(join(folder, `${names.snake}.h`), text);
  const source = join(folder, 'use.cc');
  writeFileSync(
    source,
    [
      `#include "${names.snake}.h"`,
      'rmmjs_status Make(rmmjs_resource* upstream, rmmjs_resource** out) {',
      `  return rmmjs::NewResource<rmmjs::${names.className}>(upstream->device, 0, out, rmmjs::ResourceRef::Retain(upstream), 1);`,
      '}',
      '',
    ].join('\n'),
  );
  const result = spawnSync('c++', ['-std=c++17', '-fsyntax-only', `-I${coreInclude}`, source], { encoding: 'utf8' });
  return { status: result.status, output: result.stderr };
}

describe("the suballocator template's policy", () => {
  it('compiles as it is', () => {
    const { status, output } = compile(header);
    expect(status, output).toBe(0);
  });

  it.each([
    ['BlockSize', without(header, 'rmmjs_status BlockSize('), 'policy needs rmmjs_status BlockSize(size_t bytes'],
    ['TakeBack', without(header, 'rmmjs_status TakeBack('), 'policy needs rmmjs_status TakeBack(uintptr_t ptr'],
    ['Release', without(header, 'void Release()'), 'policy needs void Release()'],
    ['noexcept', header.replace('HandOut(Block* block) noexcept', 'HandOut(Block* block)'), 'HandOut must be noexcept'],
  ])('does not compile without %s, and the error says what is missing', (_, text, message) => {
    const { status, output } = compile(text);
    expect(status).not.toBe(0);
    expect(output).toContain(message);
  });
});
