// One debug log message at each level, trace to off, at level trace; prints the clock (HH:MM:SS)
// before and after.
import { native } from '@rmmjs/core/internal';
import { LevelEnum, setLoggingLevel } from '@rmmjs/logging';

const clock = () => new Date().toTimeString().slice(0, 8);
const before = clock();
setLoggingLevel(LevelEnum.trace);
for (let level = 0; level <= 6; level++) native.log(level, `message ${level}`);
console.log(before, clock());
