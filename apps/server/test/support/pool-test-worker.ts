import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchBufferMemory } from '../../src/extraction/buffer-watch.js';

/** Tasks of the worker the pool tests run: each one ends the way a real extraction can. */
export type PoolTestTask =
  | { kind: 'echo'; value: string }
  | { kind: 'sleep'; ms: number }
  | { kind: 'track'; counters: Int32Array; ms: number }
  | { kind: 'spin' }
  | { kind: 'allocate' }
  | { kind: 'buffers' }
  | { kind: 'exit' }
  | { kind: 'throw-later' }
  | { kind: 'throw'; message: string };

/** Blocks this thread for `ms` (a synchronous wait, as a long parse would). */
function block(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Buffers of 16 MB, one every 10 ms, yielding between them as pdf.js does: outside the heap cap. */
async function hoardBuffers(): Promise<string> {
  const hoard: Buffer[] = [];
  for (;;) {
    hoard.push(Buffer.alloc(16 * 1024 * 1024, 1));
    await sleep(10);
  }
}

/** Runs one pool test task in a worker thread. */
async function runPoolTestTask(task: PoolTestTask): Promise<string> {
  switch (task.kind) {
    case 'echo':
      return `${task.value} from a thread`;
    case 'sleep':
      block(task.ms);
      return 'slept';
    case 'track': {
      // counters[0]: tasks running now, counters[1]: the most seen at once (shared with the test).
      const running = Atomics.add(task.counters, 0, 1) + 1;
      let seen = Atomics.load(task.counters, 1);
      while (running > seen) {
        Atomics.compareExchange(task.counters, 1, seen, running);
        seen = Atomics.load(task.counters, 1);
      }
      block(task.ms);
      Atomics.sub(task.counters, 0, 1);
      return 'tracked';
    }
    case 'spin':
      // A synchronous loop: only terminating the thread stops it.
      for (;;) {}
    case 'allocate': {
      // Live objects until the heap cap is reached.
      const hoard: Array<{ index: number; text: string }> = [];
      for (let index = 0; ; index += 1) hoard.push({ index, text: `item ${index}` });
    }
    case 'buffers':
      return hoardBuffers();
    case 'throw-later':
      // Fails after its task has answered: the thread dies while idle.
      setTimeout(() => {
        throw new Error('thrown between tasks');
      }, 20);
      return 'answered';
    case 'exit':
      process.exit(3);
      return 'unreachable';
    case 'throw':
      throw new Error(task.message);
  }
}

/** The thread's task handler, held to the pool's buffer budget as the extraction threads are. */
export default watchBufferMemory(runPoolTestTask);
