// Every JavaScript example in the READMEs and docs/ runs, in a process of its own, and each
// `console.log(...); // expected` line prints what its comment says (`...` in a comment stands for
// anything). An example that cannot run on its own is marked `<!-- not run: why -->` above it, one
// that needs a CUDA driver (the fake one or a GPU) `<!-- needs CUDA -->`. Examples are run in host
// mode, on the fake driver and on the GPU, like every test.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backend } from '@rmmjs/test-helpers';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const documents = [
  join(root, 'README.md'),
  ...readdirSync(join(root, 'docs')).map((name) => join(root, 'docs', name)),
  ...['packages', 'tooling'].flatMap((dir) =>
    readdirSync(join(root, dir))
      .map((name) => join(root, dir, name, 'README.md'))
      .filter(existsSync),
  ),
].filter((file) => file.endsWith('.md'));

interface Example {
  name: string;
  code: string;
  skip?: string;
  needsCuda: boolean;
}

function examplesOf(file: string): Example[] {
  const text = readFileSync(file, 'utf8');
  const examples: Example[] = [];
  const block = /(?:<!-- not run: (.*?) -->\s*\n)?(<!-- needs CUDA -->\s*\n)?```js\n([\s\S]*?)```/g;
  for (const match of text.matchAll(block)) {
    const line = text.slice(0, match.index).split('\n').length;
    const name = `${relative(root, file)}:${line}`;
    examples.push({ name, code: match[3], skip: match[1], needsCuda: match[2] !== undefined });
  }
  return examples;
}

const checked = /^(\s*)console\.log\((.*)\);\s*\/\/ (.*)$/;

/** The example with each commented console.log recording what it prints, and the expectations. */
function instrument(code: string): { script: string; expected: string[] } {
  const expected: string[] = [];
  const lines = code.split('\n').map((line) => {
    const match = checked.exec(line);
    if (!match) return line;
    expected.push(match[3].trim());
    return `${match[1]}__printed.push(__format(${match[2]}));`;
  });
  const script = [
    "import { format as __format } from 'node:util';",
    "import { isMainThread as __isMainThread } from 'node:worker_threads';",
    'const __printed = [];',
    // On exit (also process.exit), from the main thread only (an example may run itself in workers).
    // On a line of its own, whatever the example wrote last.
    "if (__isMainThread) process.on('exit', () => console.log('\\n__PRINTED__' + JSON.stringify(__printed)));",
    ...lines,
  ].join('\n');
  return { script, expected };
}

// Whitespace runs count as one space: console.log breaks long objects over lines.
const matches = (printed: string, expected: string) => {
  const pattern = expected
    .split('...')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 's').test(printed.replace(/\s+/g, ' '));
};

const examples = documents.flatMap(examplesOf);

/**
 * Runs a script as a module in a directory of its own (files an example writes land there and go
 * away), from where this package's dependencies (every rmmjs package) and the package itself resolve.
 */
function runExample(script: string) {
  const packageDir = fileURLToPath(new URL('..', import.meta.url));
  const dir = mkdtempSync(join(packageDir, 'node_modules', '.example-'));
  try {
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(packageDir, join(dir, 'node_modules', 'rmmjs'), 'dir');
    writeFileSync(join(dir, 'example.mjs'), script);
    const run = spawnSync(process.execPath, ['example.mjs'], { cwd: dir, encoding: 'utf8' });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('documentation examples', () => {
  it('finds the examples', () => {
    expect(examples.length).toBeGreaterThan(10);
  });

  for (const { name, code, skip, needsCuda } of examples) {
    const skipped = skip !== undefined || (needsCuda && backend() === 'host');
    it.skipIf(skipped)(name, () => {
      const { script, expected } = instrument(code);
      const result = runExample(script);
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
      const marker = result.stdout.split('\n').find((line) => line.startsWith('__PRINTED__'));
      const printed = JSON.parse(marker!.slice('__PRINTED__'.length)) as string[];
      expect(printed.length).toBe(expected.length);
      printed.forEach((line, i) => {
        if (!matches(line, expected[i])) expect(line).toBe(expected[i]);
      });
    });
  }
});
