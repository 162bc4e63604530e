import process from 'node:process';
import { workerData } from 'node:worker_threads';

/** The exit code of a thread that {@link watchBufferMemory} stopped; the pool reports it as the heap limit. */
export const BUFFER_LIMIT_EXIT_CODE = 87;

/** How often the thread's buffers are measured. */
const WATCH_INTERVAL_MS = 100;

/** What a {@link BoundedPool} hands each thread: its buffer budget in MB. */
export type PoolWorkerData = { bufferLimitMb: number };

/**
 * Ends this worker thread once its ArrayBuffers (file bytes, unzipped entries, decoded PDF
 * streams) pass the pool's budget. `resourceLimits` caps only the JavaScript heap, and these
 * live outside it: pdf.js inflates a whole content stream into one buffer before reading it,
 * 1 GiB for a 4 MB PDF. The count is this thread's own (per isolate), measured every 100 ms;
 * work that yields to the event loop, as pdf.js does, is stopped within a tick of the budget.
 * Call it once, at the top of a thread module.
 */
export function watchBufferMemory(): void {
  const limitMb = bufferLimitOf(workerData);
  if (limitMb === undefined) return;
  const limit = limitMb * 1024 * 1024;
  setInterval(() => {
    if (process.memoryUsage().arrayBuffers > limit) process.exit(BUFFER_LIMIT_EXIT_CODE);
  }, WATCH_INTERVAL_MS).unref();
}

function bufferLimitOf(data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value: unknown = Reflect.get(data, 'bufferLimitMb');
  return typeof value === 'number' && value > 0 ? value : undefined;
}
