// Arguments that refer to the world (resources, streams, buffers): their value, classified by the
// public API's rules (a disposed resource or freed buffer is ERR_RMM_DISPOSED; anything that is
// not one, a Proxy of one included, ERR_INVALID_ARG_TYPE).
export * from './oracle.js';

/** A resource argument: the value and its world entry (undefined when it is not a resource). */
export function resource(call, descriptor) {
  const value = call.value(descriptor);
  const entry = call.world.resourceEntry(value);
  if (entry === undefined) call.invalid('type');
  else if (entry.disposed) call.invalid('disposed');
  return { value, entry };
}

/** An optional stream argument (`undefined` is the default stream; `null` is the wrong type). */
export function stream(call, descriptor) {
  const value = call.value(descriptor);
  if (value === undefined) return { value, entry: undefined };
  const entry = call.world.streamEntry(value);
  if (entry === undefined) call.invalid('type');
  else if (entry.disposed) call.invalid('disposed');
  return { value, entry };
}

/** A DeviceBuffer argument. */
export function buffer(call, descriptor) {
  const value = call.value(descriptor);
  const entry = call.world.bufferEntry(value);
  if (entry === undefined) call.invalid('type');
  else if (entry.freed) call.invalid('disposed');
  return { value, entry };
}
