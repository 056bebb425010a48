// What collector.js exports.
export function dropOnlyLoops(makeAndDrop: (i: number) => unknown, count: number): Promise<void>;
export function countFullCollections<T>(fn: () => T | Promise<T>): Promise<{ result: T; collections: number }>;
