#!/usr/bin/env node
// The `rmmjs` command.
import { main } from './main.js';

// Output piped into a reader that stopped (`rmmjs info | head -1`): nothing more to say.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

process.exitCode = await main(process.argv.slice(2));
