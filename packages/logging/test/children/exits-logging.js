// 3000 allocations through a LoggingResourceAdaptor (the current device resource) into the CSV file
// its first argument names, every third buffer kept live; then ends as its second argument says:
// 'end' (the script ends), 'exit' (process.exit(0)) or 'exit-from-timer' (process.exit(3) from a timer).
import { DeviceBuffer, getCurrentDeviceResource, setCurrentDeviceResource } from '@rmmjs/core';
import { LoggingResourceAdaptor } from '@rmmjs/logging';

const [logFileName, ending] = process.argv.slice(2);
const mr = new LoggingResourceAdaptor(getCurrentDeviceResource(), { logFileName });
setCurrentDeviceResource(mr);
// Reachable to the end: a collection before a timer's turn would free unreachable buffers.
/** @type {DeviceBuffer[]} */
const kept = [];
Object.assign(globalThis, { kept });
for (let i = 0; i < 3000; i++) {
  const buffer = new DeviceBuffer({ size: 1 + (i % 500) });
  if (i % 3 === 0) kept.push(buffer);
  else buffer.free();
}
if (ending === 'exit') process.exit(0);
if (ending === 'exit-from-timer') setTimeout(() => process.exit(3), 0);
