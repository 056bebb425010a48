/**
 * Runs `work` and posts what it returns, or its error as "<code>: <message>", to the thread that
 * started this worker with runWorker (the last statement of a worker module).
 */
export function answer(work: () => unknown): Promise<void>;
