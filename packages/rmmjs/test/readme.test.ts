// The README's example runs as written.
import { readFileSync } from 'node:fs';
import { runInProcess } from '@rmmjs/test-helpers';
import { expect, it } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readme.match(/```js\n([\s\S]*?)```/)![1];

it("the README's example prints what its comment says (in a process of its own)", () => {
  const expected = example.match(/console\.log\(.*\); \/\/ (.*)/)![1];
  const result = runInProcess(example.replace('1 GiB', '64 MiB'));
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toBe(expected);
});
