// A 1 MiB arena (dumpLogOnFailure: the first argument, 'true' or 'false') with two streams' arenas
// used and 64 KiB kept, asked for 8 MiB: prints the error's code and message. The second argument,
// where given, is the log level set first.
import { Stream, getCurrentDeviceResource } from '@rmmjs/core';
import { native } from '@rmmjs/core/internal';
import { ArenaMemoryResource } from '@rmmjs/arena';
import { KiB, MiB } from '@rmmjs/test-helpers/bytes';

const [dump, level] = process.argv.slice(2);
if (level !== undefined) native.setLogLevel(Number(level));
const mr = new ArenaMemoryResource(getCurrentDeviceResource(), {
  arenaSize: '1 MiB',
  dumpLogOnFailure: dump === 'true',
});
for (const stream of [new Stream(), new Stream()]) mr.deallocate(mr.allocate(32 * KiB, stream), 32 * KiB, stream);
const kept = mr.allocate(64 * KiB);
try {
  mr.allocate(8 * MiB);
} catch (error) {
  const { code, message } = /** @type {{ code: string, message: string }} */ (error);
  console.log(`${code}: ${message}`);
}
mr.deallocate(kept, 64 * KiB);
