// Its work throws an error with a code.
import { answer } from '@rmmjs/test-helpers/worker';

await answer(() => {
  throw Object.assign(new RangeError('out of range in the worker'), { code: 'ERR_OUT_OF_RANGE' });
});
