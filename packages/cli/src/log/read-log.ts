/** A log from text or from a file (streamed, for logs of any size). */
import type { AllocationLog } from './allocation-log.js';
import { openRegularFile, validatePath } from '../files.js';
import { LogParser } from './log-parser.js';
import { validateOptionalFunction, validateOptions, validateString } from '../validate.js';

/** Parses the text of a log. */
export function parseLog(text: string, source = '<log>'): AllocationLog {
  validateString(text, 'text');
  const parser = new LogParser(source);
  const lines = text.split('\n');
  const unterminated = lines.at(-1) !== '';
  if (!unterminated) lines.pop();
  lines.forEach((line, i) => parser.line(line, unterminated && i === lines.length - 1));
  return parser.finish();
}

/**
 * Reads and parses a log file, streaming; `onProgress(bytesRead, fileBytes)` as it goes. A path
 * with a null byte, or a file that is not a regular one (a FIFO, a device, a directory), is refused
 * (`TypeError` `ERR_INVALID_ARG_VALUE`) without waiting on it.
 */
export async function readLog(
  file: string,
  options: { onProgress?: (read: number, total: number) => void } = {},
): Promise<AllocationLog> {
  validatePath(file, 'file');
  const onProgress = validateOptionalFunction<(read: number, total: number) => void>(
    validateOptions<typeof options>(options).onProgress,
    'options.onProgress',
  );
  const parser = new LogParser(file);
  const { handle, stats } = await openRegularFile(file, 'file');
  const total = stats.size;
  let rest = '';
  let read = 0;
  // The log is ASCII; latin1 never splits a character across chunks. (The stream closes the file.)
  for await (const chunk of handle.createReadStream({ encoding: 'latin1', highWaterMark: 1 << 20 })) {
    const text = rest + (chunk as string);
    read += (chunk as string).length;
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      parser.line(text.slice(start, end));
      start = end + 1;
    }
    rest = text.slice(start);
    onProgress?.(read, total);
  }
  if (rest !== '') parser.line(rest, true);
  return parser.finish();
}
