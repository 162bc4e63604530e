import { Piscina } from 'piscina';
import { BUFFER_LIMIT_EXIT_CODE, type PoolWorkerData } from './buffer-watch.js';

/** Limits of a {@link BoundedPool}: threads, each thread's heap, and each task's wall-clock time. */
export type PoolLimits = {
  /** Tasks running at once (one thread each); more wait in line. */
  workers: number;
  /**
   * V8 old-generation heap of each thread, in MB (`resourceLimits.maxOldGenerationSizeMb`); a
   * thread module that calls `watchBufferMemory` is held to as much again in ArrayBuffers.
   */
  heapMb: number;
  /** Longest a task may run once it has a thread; the thread is terminated when it overruns. */
  timeoutMs: number;
};

/** Which limit stopped a task: its thread ran out of heap, overran its time, or died otherwise. */
export type WorkerLimit = 'heap' | 'timeout' | 'crashed';

/** A task that got no answer from its thread; the message says which limit, for the admin. */
export class WorkerLimitError extends Error {
  override readonly name = 'WorkerLimitError';
  readonly limit: WorkerLimit;

  constructor(limit: WorkerLimit, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.limit = limit;
  }
}

/** Runs tasks in worker threads within {@link PoolLimits}. */
export type BoundedPool<Task, Result> = {
  /**
   * Runs one task; rejects with {@link WorkerLimitError} when a limit stopped it. `transfer`
   * lists buffers moved to the thread instead of copied (unusable here afterwards).
   */
  run(task: Task, transfer?: ArrayBuffer[]): Promise<Result>;
  /** Terminates every thread; tasks still waiting or running reject. */
  close(): Promise<void>;
};

/** How long an idle thread is kept before it exits (a new one starts on the next task). */
const IDLE_TIMEOUT_MS = 30_000;

/**
 * A pool of worker threads running the default export of `filename`, with a heap cap per
 * thread, a wall-clock limit per task and at most `workers` tasks at once. The time limit
 * starts when a task gets a thread, not while it waits in line, so a burst of small tasks
 * cannot time out a big one behind it. A thread that runs out of heap, overruns or crashes
 * fails only its own task; piscina replaces it for the next one.
 */
export function createBoundedPool<Task, Result>(
  filename: URL,
  limits: PoolLimits,
): BoundedPool<Task, Result> {
  const piscina = new Piscina<Task, Result>({
    filename: filename.href,
    minThreads: 0,
    maxThreads: limits.workers,
    idleTimeout: IDLE_TIMEOUT_MS,
    // Atomics.wait would block an idle thread's event loop; the tasks are long, the saving nil.
    atomics: 'disabled',
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    workerData: { bufferLimitMb: limits.heapMb } satisfies PoolWorkerData,
  });
  // A thread that fails between tasks (none waiting on it) is only replaced; without a listener
  // piscina's 'error' event would end the process.
  piscina.on('error', () => undefined);
  const waiting: Array<() => void> = [];
  let running = 0;
  let closed = false;

  /** Resolves once one of the `workers` slots is free for the caller. */
  const acquire = (): Promise<void> => {
    if (running < limits.workers) {
      running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    // The slot passes straight to the next waiter, so `running` stays as it is.
    if (next) next();
    else running -= 1;
  };

  const run = async (task: Task, transfer: ArrayBuffer[] = []): Promise<Result> => {
    if (closed) throw new Error('the extraction pool is closed');
    await acquire();
    if (closed) {
      release();
      throw new Error('the extraction pool is closed');
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), limits.timeoutMs);
    try {
      return await piscina.run(task, { signal: abort.signal, transferList: transfer });
    } catch (error) {
      throw limitError(error, abort.signal.aborted, limits);
    } finally {
      clearTimeout(timer);
      release();
    }
  };

  return {
    run,
    async close() {
      closed = true;
      await piscina.destroy();
      // Waiters get a slot and find the pool closed: piscina rejects their task.
      for (const next of waiting.splice(0)) next();
    },
  };
}

/** The task's failure as a {@link WorkerLimitError} when a limit caused it; other errors pass through. */
function limitError(error: unknown, timedOut: boolean, limits: PoolLimits): unknown {
  if (timedOut) {
    return new WorkerLimitError(
      'timeout',
      `it takes longer than ${formatSeconds(limits.timeoutMs)} to read`,
      {
        cause: error,
      },
    );
  }
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return new WorkerLimitError('heap', `it needs more than ${limits.heapMb} MB of memory to read`, {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (message === `worker exited with code: ${BUFFER_LIMIT_EXIT_CODE}`) {
    return new WorkerLimitError('heap', `it needs more than ${limits.heapMb} MB of memory to read`, {
      cause: error,
    });
  }
  if (/^worker exited with code/i.test(message) || code === 'ERR_WORKER_INIT_FAILED') {
    return new WorkerLimitError('crashed', `the reader stopped unexpectedly (${message})`, { cause: error });
  }
  return error;
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
