#!/usr/bin/env node
// rmmjs-doc-tables --check | --write: the README's package table and the resource table of
// docs/rmm-python-to-rmmjs.md, made from the packages' manifests and resource registrations.
// --check lists the files out of date and exits 1; --write writes them.
import { parseArgs } from 'node:util';
import { updateDocTables } from '../src/doc-tables.js';

let values;
try {
  ({ values } = parseArgs({ options: { check: { type: 'boolean' }, write: { type: 'boolean' } }, strict: true }));
} catch (error) {
  console.error(`rmmjs-doc-tables: ${error.message}`);
  process.exit(2);
}
if (values.check === values.write) {
  console.error('rmmjs-doc-tables: give one of --check and --write');
  process.exit(2);
}
try {
  const stale = updateDocTables({ write: values.write });
  if (values.write) for (const file of stale) console.log(`rmmjs-doc-tables: wrote ${file}`);
  else if (stale.length > 0) {
    console.error(`rmmjs-doc-tables: out of date: ${stale.join(', ')} (run \`pnpm run docs:tables\`)`);
    process.exit(1);
  }
} catch (error) {
  console.error(`rmmjs-doc-tables: ${error.message}`);
  process.exit(1);
}
