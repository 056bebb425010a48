#!/usr/bin/env node
// pnpm new:resource <name> --adaptor | --suballocator [--out DIR]
// Stamps packages/<name>/ (@rmmjs/<name>): a resource that builds, passes the conformance suite and
// lints as it is; adds it to the umbrella's dependencies, runs `pnpm install`, writes the docs'
// tables and a changeset. With --out DIR, only the package, into DIR/<name>.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stamp } from '../src/stamp.js';

const usage = 'usage: pnpm new:resource <name> --adaptor | --suballocator [--out DIR]';
let parsed;
try {
  parsed = parseArgs({
    allowPositionals: true,
    strict: true,
    options: { adaptor: { type: 'boolean' }, suballocator: { type: 'boolean' }, out: { type: 'string' } },
  });
} catch (error) {
  console.error(`new:resource: ${error.message}\n${usage}`);
  process.exit(2);
}
const { values, positionals } = parsed;
if (positionals.length !== 1 || values.adaptor === values.suballocator) {
  console.error(`new:resource: give one name and one of --adaptor and --suballocator\n${usage}`);
  process.exit(2);
}
try {
  const kind = values.adaptor ? 'adaptor' : 'suballocator';
  const options = values.out === undefined ? {} : { into: resolve(values.out), workspace: false };
  const { names, directory, written } = stamp(positionals[0], kind, options);
  console.log(`new:resource: ${names.className} in ${names.package} (${directory})`);
  for (const file of written) console.log(`  ${file}`);
  if (values.out === undefined)
    console.log(`next: pnpm build && pnpm --filter ${names.package} test, then make ${names.className} do its job`);
} catch (error) {
  console.error(`new:resource: ${error.message}`);
  process.exit(1);
}
