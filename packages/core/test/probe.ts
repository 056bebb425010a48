// test/addon/probe.c: views into core's state that core's addon does not export.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ResourceHandle } from '@rmmjs/core/internal';

export interface Probe {
  /** The references the resource has now. */
  refcount(mr: ResourceHandle): number;
  /** The external memory this thread's isolate counts (DeviceBuffers report theirs in batches of 256 KiB). */
  externalMemory(): number;
}

export const probePath = fileURLToPath(
  new URL('../build/test-addons/rmmjs_test_probe/build/Release/rmmjs_test_probe.node', import.meta.url),
);
export const probe = createRequire(import.meta.url)(probePath) as Probe;
