// Preloaded into each process of bench:soak's set with `--heap yes`
// (NODE_OPTIONS="--expose-gc --require <this file>", HEAP_PROBE_DIR set): every 10 s a full
// garbage collection, then the memory still in use appended as a JSON line to
// $HEAP_PROBE_DIR/<pid>.jsonl. The heap left after a full collection grows only when something
// keeps what it allocated (a leak); a process's RSS also moves with the allocator and V8's sizing.
// The collections pause each process a little, so a run with it is not one to judge p99 by.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const { isMainThread } = require('node:worker_threads');

const dir = process.env.HEAP_PROBE_DIR;
if (dir && isMainThread && typeof globalThis.gc === 'function') {
  const file = join(dir, `${process.pid}.jsonl`);
  const probe = () => {
    globalThis.gc();
    const memory = process.memoryUsage();
    const line = { t: Date.now(), heapUsed: memory.heapUsed, external: memory.external, rss: memory.rss };
    try {
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // the bench's directory is gone: the run is over
    }
  };
  setInterval(probe, 10_000).unref();
}
