import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the CPU priority of this whole process to `nice` (0 = normal, 19 = lowest), so that
 * on a machine it shares with service instances the scheduler gives the instances' answers the
 * CPU first and this process what is left. Only ever lowers: a thread already nicer than
 * `nice` keeps its value (raising a priority needs privileges).
 *
 * On Linux a nice value belongs to a thread, and setpriority() on the process id changes the
 * main thread only. So each thread running now (`/proc/self/task`: V8's and libuv's) is set,
 * and the threads started later (the extraction threads) inherit the value of the main thread
 * that starts them. Elsewhere the process is set with one call. Returns how many threads, or
 * processes, now run at `nice` or nicer.
 */
export function lowerPriority(nice: number): number {
  if (!Number.isInteger(nice) || nice < 0 || nice > 19) {
    throw new RangeError(`nice must be an integer from 0 to 19, not ${nice}`);
  }
  const threads = threadIds();
  if (threads === null) return lower(0, nice) ? 1 : 0;
  let lowered = 0;
  for (const thread of threads) if (lower(thread, nice)) lowered += 1;
  return lowered;
}

/** The ids of this process's threads, or null where /proc does not list them. */
function threadIds(): number[] | null {
  try {
    return readdirSync('/proc/self/task')
      .map(Number)
      .filter((id) => Number.isInteger(id) && id > 0);
  } catch {
    return null;
  }
}

function lower(id: number, nice: number): boolean {
  try {
    if (getPriority(id) < nice) setPriority(id, nice);
    return true;
  } catch {
    // The thread ended between the listing and the call.
    return false;
  }
}
