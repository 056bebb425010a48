/**
 * The cli's own file opens. A path is checked as Node's fs checks it (a null byte is refused
 * before anything is opened), and a log is read from a regular file only: a FIFO or a device is
 * opened without blocking (O_NONBLOCK), seen with fstat and refused, so it cannot stall the read.
 */
import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { inspect } from 'node:util';
import { invalidArgValue } from '@rmmjs/core/internal';
import { UsageError } from './usage-error.js';
import { validateString } from './validate.js';

const hasNullByte = (path: string) => path.includes('\0');

/** A path: a string (ERR_INVALID_ARG_TYPE) without a null byte (ERR_INVALID_ARG_VALUE), as Node's fs has it. */
export function validatePath(value: unknown, name: string): string {
  const path = validateString(value, name);
  if (hasNullByte(path)) throw invalidArgValue(name, `must be a string without null bytes. Received ${inspect(path)}`);
  return path;
}

/** A path on the command line (`what`: `--output`, `the log file`): one with a null byte is a UsageError. */
export function commandLinePath(path: string, what: string): string {
  if (hasNullByte(path)) throw new UsageError(`${what}: ${inspect(path)} has a null byte, which no path can have`);
  return path;
}

/** What a file that is not a regular one is, for messages. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** The same file: the same device and inode (a hard link or a symbolic link to it, another spelling of its path). */
export const sameFile = (a: Stats, b: Stats) => a.dev === b.dev && a.ino === b.ino;

// O_NONBLOCK: opening a FIFO to read returns at once instead of waiting for a writer (0 where the
// platform has none).
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * Opens `file` (a checked path) to read and returns it with its fstat; one that is not a regular
 * file is closed and refused (`TypeError` `ERR_INVALID_ARG_VALUE` naming `name`).
 */
export async function openRegularFile(file: string, name: string): Promise<{ handle: FileHandle; stats: Stats }> {
  const handle = await open(file, READ_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw invalidArgValue(name, `must be a regular file. Received ${inspect(file)} (${fileKind(stats)})`);
    }
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
