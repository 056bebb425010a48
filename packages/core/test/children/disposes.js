// Makes one of core's classes (the first argument: 'Stream' or 'CudaAsyncMemoryResource') and
// disposes of it at once, so that what its destructor logs goes to the debug log.
import * as core from '@rmmjs/core';

const name = /** @type {'Stream' | 'CudaAsyncMemoryResource'} */ (process.argv[2]);
new core[name]()[Symbol.dispose]();
