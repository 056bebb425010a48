// Talks with the test in JSON lines (stdin, stdout): opens the IPC handle of the first line and
// answers { size, last } (its last byte); frees the view at the next line and answers { closed }
// (the open mappings left); exits at the next.
import { createInterface } from 'node:readline';
import { openIpcHandle, openIpcMappings } from '@rmmjs/interop';

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => JSON.parse((await lines.next()).value);
/** @param {unknown} value */
const send = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

const view = openIpcHandle(await next());
send({ size: view.size, last: view.toBytes()[view.size - 1] });
await next();
view.free();
send({ closed: openIpcMappings() });
await next();
process.exit(0);
