// Preloaded into each process of bench:soak's set with `--heap yes`
// (NODE_OPTIONS="--expose-gc --require <this file>", HEAP_PROBE_DIR set): every 10 s a full
// garbage collection, then the memory still in use appended as a JSON line to
// $HEAP_PROBE_DIR/<pid>.jsonl. The heap left after a full collection grows only when something
// keeps what it allocated (a leak); a process's RSS also moves with the allocator and V8's sizing.
// The collections pause each process a little, so a run with it is not one to judge p99 by.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const { getHeapSpaceStatistics } = require('node:v8');
const { isMainThread } = require('node:worker_threads');

const dir = process.env.HEAP_PROBE_DIR;
if (dir && isMainThread && typeof globalThis.gc === 'function') {
  const file = join(dir, `${process.pid}.jsonl`);
  const probe = () => {
    globalThis.gc();
    const memory = process.memoryUsage();
    // Per space: old_space holds what the program keeps, code_space the compiled code (which grows
    // while V8 optimizes more functions as a process warms up), large_object_space the big arrays.
    const spaces = {};
    for (const space of getHeapSpaceStatistics()) spaces[space.space_name] = space.space_used_size;
    const line = {
      t: Date.now(),
      heapUsed: memory.heapUsed,
      external: memory.external,
      arrayBuffers: memory.arrayBuffers,
      rss: memory.rss,
      spaces,
    };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // the bench's directory is gone: the run is over
    }
  };
  setInterval(probe, 10_000).unref();
}
