// On the GPU machine, which has no npm registry to install from: the npm-installed projects of a
// `--gpu-bundle FILE` (RMMJS_SMOKE_ON_GPU names it), unpacked and run on the real driver: (a) to (d)
// of pack.smoke.ts. There is no npm there: the bins run with node.
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { CONSUMER_PRINTS, copyFixtures, DEMO_REPORT, PREBUILDS, run, smokeDir } from './project.js';

const temp = smokeDir();
const bundle = process.env.RMMJS_SMOKE_ON_GPU;
const minimal = join(temp, 'npm-core-pool');
const everything = join(temp, 'npm-all');
const gpu: NodeJS.ProcessEnv = { ...process.env, ...PREBUILDS };
delete gpu.RMMJS_DISABLE_CUDA;
const onGpu = (dir: string, args: string[]) => run('node', args, { cwd: dir, env: gpu }).trim();

beforeAll(() => {
  if (bundle === undefined) throw new Error('RMMJS_SMOKE_ON_GPU is not set: run `src/smoke.mjs --on-gpu FILE`');
  run('tar', ['-xJf', bundle, '-C', temp], { cwd: temp });
  copyFixtures(minimal, 'pool.mjs');
  copyFixtures(everything, 'umbrella.mjs');
});

it('(a) @rmmjs/core + @rmmjs/pool alone', () => {
  const output = onGpu(minimal, ['pool.mjs']);
  expect(output, 'not on the GPU').toMatch(/^cuda, \d+ devices/);
  console.log(output);
});

it("(b) import * as rmm from 'rmmjs'", () => {
  console.log(onGpu(everything, ['umbrella.mjs']));
});

it('(c) rmmjs demo', () => {
  const output = onGpu(everything, [join(everything, 'node_modules', '.bin', 'rmmjs'), 'demo']);
  expect(output, 'no profiler report').toMatch(DEMO_REPORT);
  expect(output.split('\n').slice(0, 5).join('\n'), 'the demo ran in host mode').not.toMatch(/host mode/i);
  console.log(`${output.split('\n').length} lines, profiler report printed`);
});

it('(d) the compiled TypeScript consumer', () => {
  expect(onGpu(everything, ['out/consumer.js'])).toBe(CONSUMER_PRINTS);
});
