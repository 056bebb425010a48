// Messages below the level (info by default, then error) and at it; prints this process's id.
import { native } from '@rmmjs/core/internal';
import { LevelEnum, setLoggingLevel } from '@rmmjs/logging';

native.log(1, 'debug: not logged');
native.log(2, 'info: logged');
setLoggingLevel(LevelEnum.error);
native.log(3, 'warning: not logged');
native.log(4, 'error: logged');
console.log(process.pid);
