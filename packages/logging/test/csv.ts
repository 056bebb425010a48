// RMM's CSV allocation log, read as RMM's replay tool reads it (cpp/benchmarks/utilities/
// log_parser.hpp): columns by header name, the pointer in hex ("(nil)" is 0), the thread id and
// the size in decimal, the stream in hex. `rowPattern` is the exact row RMM's logging adaptor
// writes ("%t,%H:%M:%S.%f,<action>,%p,%zu,<stream in hex>").
export const HEADER = 'Thread,Time,Action,Pointer,Size,Stream';
export const rowPattern =
  /^(\d+),(\d{2}:\d{2}:\d{2}\.\d{6}),(allocate|allocate failure|free),(0x[0-9a-f]+|\(nil\)),(\d+),([0-9a-f]+)$/;

export interface LogEvent {
  thread: number;
  time: string;
  action: 'allocate' | 'allocate failure' | 'free';
  pointer: bigint;
  size: number;
  stream: bigint;
}

/** The events of a log's text; throws on anything RMM's writer would not have written. */
export function parseLog(text: string): LogEvent[] {
  if (!text.endsWith('\n')) throw new Error('a log ends with a newline');
  const [header, ...rows] = text.slice(0, -1).split('\n');
  if (header !== HEADER) throw new Error(`bad header: ${header}`);
  return rows.map((row) => {
    const match = rowPattern.exec(row);
    if (match === null) throw new Error(`not a row of RMM's log: ${row}`);
    const [, thread, time, action, pointer, size, stream] = match;
    return {
      thread: Number(thread),
      time,
      action: action as LogEvent['action'],
      pointer: pointer === '(nil)' ? 0n : BigInt(pointer),
      size: Number(size),
      stream: BigInt(`0x${stream}`),
    };
  });
}

/** What a replay needs to hold: every free is of a live allocation of the same size, in file order. */
export function replayProblems(events: LogEvent[]): string[] {
  const live = new Map<bigint, number>();
  const problems: string[] = [];
  for (const [index, event] of events.entries()) {
    if (event.action === 'allocate') {
      if (live.has(event.pointer)) problems.push(`row ${index}: ${event.pointer} allocated twice`);
      live.set(event.pointer, event.size);
    } else if (event.action === 'free') {
      if (live.get(event.pointer) !== event.size)
        problems.push(`row ${index}: free of ${event.pointer} that is not live with that size`);
      live.delete(event.pointer);
    }
  }
  return problems;
}
