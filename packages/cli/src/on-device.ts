import { cuda } from '@rmmjs/core';

/** Runs `fn` with `device` current, then makes the caller's device current again. */
export function onDevice<T>(device: number, fn: () => T): T {
  const current = cuda.getDevice();
  if (current !== device) cuda.setDevice(device);
  try {
    return fn();
  } finally {
    if (current !== device) cuda.setDevice(current);
  }
}
