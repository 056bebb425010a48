// Methods profiled with the profiler decorator. profiler.test.ts compiles this file with
// TypeScript's standard decorators and with experimentalDecorators (Node cannot parse decorators)
// and runs each compiled copy in a child process: it prints what two calls of the method return,
// then the records as JSON.
import { DeviceBuffer } from '@rmmjs/core';
import { ProfilerRecords, enableStatistics, profiler } from '@rmmjs/statistics';

enableStatistics();
const records = new ProfilerRecords();
class Loader {
  @profiler({ records })
  load(size: number) {
    new DeviceBuffer({ size }).free();
    return size;
  }

  @profiler({ records })
  static make(size: number) {
    new DeviceBuffer({ size }).free();
  }
}
class Special extends Loader {}
console.log(new Loader().load(10), new Special().load(20));
Loader.make(5);
console.log(JSON.stringify(records));
