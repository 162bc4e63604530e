import process from 'node:process';
import { workerData } from 'node:worker_threads';

/** The exit code of a thread that {@link watchBufferMemory} stopped; the pool reports it as the heap limit. */
export const BUFFER_LIMIT_EXIT_CODE = 87;

/** How often the thread's buffers are measured while a task runs. */
const WATCH_INTERVAL_MS = 100;

/** What a {@link BoundedPool} hands each thread: its buffer budget in MB. */
export type PoolWorkerData = { bufferLimitMb: number };

/**
 * Wraps a thread module's task handler so the thread ends once its ArrayBuffers (file bytes,
 * unzipped entries, decoded PDF streams) pass the pool's budget while a task runs.
 * `resourceLimits` caps only the JavaScript heap, and these live outside it: pdf.js inflates a
 * whole content stream into one buffer before reading it, 1 GiB for a 4 MB PDF. The count is
 * this thread's own (per isolate), measured every 100 ms, so work that yields to the event loop,
 * as pdf.js does, is stopped within a tick of the budget; synchronous work is bounded by its own
 * caps (unzip sizes) and the pool's time limit.
 */
export function watchBufferMemory<Task, Result>(
  handler: (task: Task) => Promise<Result>,
): (task: Task) => Promise<Result> {
  const limitMb = bufferLimitOf(workerData);
  if (limitMb === undefined) return handler;
  const limit = limitMb * 1024 * 1024;
  return async (task) => {
    const watch = setInterval(() => {
      if (process.memoryUsage().arrayBuffers > limit) process.exit(BUFFER_LIMIT_EXIT_CODE);
    }, WATCH_INTERVAL_MS);
    try {
      return await handler(task);
    } finally {
      clearInterval(watch);
    }
  };
}

function bufferLimitOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value: unknown = Reflect.get(data, 'bufferLimitMb');
  return typeof value === 'number' && value > 0 ? value : undefined;
}
