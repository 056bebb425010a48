// Logs to the path of argv[3] through argv[2]: 'adaptor' (a LoggingResourceAdaptor over the current
// resource: one allocation and free, then flush) or 'enable' (enableLogging, then disableLogging).
// Prints, as JSON, { logged: true }, or { refusal: { name, code, message }, same } where `same`
// says whether the current resource is still the one before.
import { getCurrentDeviceResource } from '@rmmjs/core';
import { LoggingResourceAdaptor, disableLogging, enableLogging } from '@rmmjs/logging';

const [how, path] = process.argv.slice(2);
const before = getCurrentDeviceResource();
try {
  if (how === 'adaptor') {
    const mr = new LoggingResourceAdaptor(before, { logFileName: path });
    mr.deallocate(mr.allocate(256), 256);
    mr.flush();
    mr[Symbol.dispose]();
  } else {
    enableLogging(path);
    disableLogging();
  }
  console.log(JSON.stringify({ logged: true }));
} catch (error) {
  const { name, code, message } = /** @type {Record<string, string>} */ (error);
  console.log(JSON.stringify({ refusal: { name, code, message }, same: getCurrentDeviceResource() === before }));
}
