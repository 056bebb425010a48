// With the flush level at critical: an error message, the log's text before and after
// flushLogger(), then a critical message. Prints, as JSON, the text before, whether the flush
// wrote the error's line and whether the critical one was written at once.
import { readFileSync } from 'node:fs';
import { native } from '@rmmjs/core/internal';
import { LevelEnum, flushLogger, setFlushLevel } from '@rmmjs/logging';

const logText = () => readFileSync(/** @type {string} */ (process.env.RMM_DEBUG_LOG_FILE), 'utf8');
setFlushLevel(LevelEnum.critical);
native.log(4, 'buffered');
const before = logText();
flushLogger();
const after = logText();
native.log(5, 'flushed at once');
const critical = logText();
console.log(JSON.stringify([before, after.endsWith('] buffered\n'), critical.endsWith('] flushed at once\n')]));
