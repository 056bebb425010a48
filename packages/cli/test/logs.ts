// Logs made for the tests, in RMM's CSV format.
import { random } from '@rmmjs/test-helpers';

export const HEADER = 'Thread,Time,Action,Pointer,Size,Stream';

/** `HH:MM:SS.ffffff` for microseconds since 10:00. */
export function clock(us: number): string {
  const s = Math.floor(us / 1e6);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(10 + Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}.${pad(us % 1e6, 6)}`;
}

/**
 * `events` rows over `threads` threads: allocations of 1 B..64 KiB, up to `maxLive` live, each
 * freed later by a random thread (often another one than its allocation's), addresses reused
 * after their free, every seventh allocation on stream 0x5a5a00 (else the default stream).
 */
export function threadedLog({ threads = 3, events = 3000, maxLive = 50, seed = 7 } = {}): string {
  const next = random(seed);
  const rows = [HEADER];
  const live: [string, number, string][] = [];
  const freeAddresses: bigint[] = [];
  let fresh = 0x7f0000000000n;
  for (let i = 0; i < events; i++) {
    const thread = 4000 + Math.floor(next() * threads);
    if (live.length > 0 && (live.length >= maxLive || next() < 0.45)) {
      const at = Math.floor(next() * live.length);
      const [pointer, size, stream] = live[at];
      live[at] = live[live.length - 1];
      live.pop();
      freeAddresses.push(BigInt(pointer));
      rows.push(`${thread},${clock(i * 3)},free,${pointer},${size},${stream}`);
    } else {
      const size = 1 + Math.floor(next() * 65536);
      const address = freeAddresses.length > 0 && next() < 0.5 ? freeAddresses.shift()! : (fresh += 0x20000n);
      const pointer = `0x${address.toString(16)}`;
      const stream = i % 7 === 0 ? '5a5a00' : '0';
      live.push([pointer, size, stream]);
      rows.push(`${thread},${clock(i * 3)},allocate,${pointer},${size},${stream}`);
    }
  }
  return rows.join('\n') + '\n';
}

/**
 * A row or two for each of `threads` threads: thread k allocates (every tenth allocation on stream
 * 0x5a5a00, else the default stream) and frees what thread k - 1 allocated, so every free but the
 * first thread's is of another thread's allocation; the last allocation is never freed. With
 * `perThreadDefault`, the first that many threads allocate on the per-thread default stream (0x2).
 */
export function manyThreadsLog({ threads = 2000, perThreadDefault = 0 } = {}): string {
  const rows = [HEADER];
  const pointer = (k: number) => `0x${(0x7f0000000000 + k * 0x10000).toString(16)}`;
  const size = (k: number) => 256 * (1 + (k % 64));
  const stream = (k: number) => (k < perThreadDefault ? '0x2' : k % 10 === 0 ? '0x5a5a00' : '0x0');
  for (let k = 0; k < threads; k++) {
    const thread = 100000 + k;
    rows.push(`${thread},${clock(2 * k)},allocate,${pointer(k)},${size(k)},${stream(k)}`);
    if (k > 0) rows.push(`${thread},${clock(2 * k + 1)},free,${pointer(k - 1)},${size(k - 1)},${stream(k - 1)}`);
  }
  return rows.join('\n') + '\n';
}
