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

/**
 * A stream argument of another device than `device` (a resource's): a stream-ordered resource
 * (pool, arena, fixed-size, or an adaptor over one) refuses it (ERR_INVALID_ARG_VALUE), since its
 * events record on no stream of another context; other resources take it. The default streams are
 * the current context's, whichever that is: never another device's.
 */
export function streamOfDevice(call, streamArg, device) {
  const { value, entry } = streamArg;
  if (entry === undefined || entry.disposed || value === undefined || value.isDefault()) return;
  const own = entry.owner?.stream ?? value; // a borrowed handle names its owner's stream
  if (own.isDefault() || (entry.owner !== undefined && entry.owner.disposed)) return;
  if (own.device !== device) call.allow('value');
}

/** A DeviceBuffer argument. */
export function buffer(call, descriptor) {
  const value = call.value(descriptor);
  const entry = call.world.bufferEntry(value);
  if (entry === undefined) call.invalid('type');
  else if (entry.freed) call.invalid('disposed');
  return { value, entry };
}
