// Preloaded into each process of bench:soak's set with `--heap yes` or `--heap major`
// (NODE_OPTIONS="[--expose-gc] --require <this file>", HEAP_PROBE_DIR set); each reading is the
// memory still in use right after a full (major) garbage collection, appended as a JSON line to
// $HEAP_PROBE_DIR/<pid>.jsonl. The heap left after a full collection grows only when something
// keeps what it allocated (a leak); a process's RSS also moves with the allocator and V8's sizing.
// - HEAP_PROBE_MODE=forced (`--heap yes`): every 10 s (or HEAP_PROBE_EVERY_MS) the probe forces a
//   full collection itself; the first comes at a random point of the first interval. The
//   collections pause each process a little, so such a run is not one to judge p99 by.
// - HEAP_PROBE_MODE=major (`--heap major`): the probe collects nothing; it reads the memory after
//   each major collection V8 runs on its own (a `gc` performance entry of the major kind), at most
//   one reading per HEAP_PROBE_EVERY_MS. The process runs as it would without the probe.
const { appendFileSync } = require('node:fs');
const { join } = require('node:path');
const { PerformanceObserver, constants } = require('node:perf_hooks');
const { getHeapSpaceStatistics, getHeapStatistics } = require('node:v8');
const { isMainThread, threadId } = require('node:worker_threads');

const dir = process.env.HEAP_PROBE_DIR;
const mode = process.env.HEAP_PROBE_MODE === 'major' ? 'major' : 'forced';
if (dir && (mode === 'major' || typeof globalThis.gc === 'function')) {
  // Worker threads (the extraction pool's) run this preload too: each has a heap of its own that
  // the main thread's figures leave out, so it writes its own lines, marked with its thread id.
  // Its RSS is the process's, so a thread writes none.
  const file = join(dir, `${process.pid}.jsonl`);
  const probe = () => {
    if (mode === 'forced') globalThis.gc();
    // Per space: old_space holds what the program keeps, code_space the compiled code (which grows
    // while V8 optimizes more functions as a process warms up), large_object_space the big arrays.
    // Beside what each space uses, the memory it holds (`physical`): pages V8 keeps after the
    // collection, such as a new space that grew to its maximum and stays there.
    const spaces = {};
    const physical = {};
    for (const space of getHeapSpaceStatistics()) {
      spaces[space.space_name] = space.space_used_size;
      physical[space.space_name] = space.physical_space_size;
    }
    const heap = getHeapStatistics();
    let line;
    if (isMainThread) {
      const memory = process.memoryUsage();
      line = {
        t: Date.now(),
        heapUsed: memory.heapUsed,
        heapPhysical: heap.total_physical_size,
        external: memory.external,
        arrayBuffers: memory.arrayBuffers,
        rss: memory.rss,
        spaces,
        physical,
      };
    } else {
      line = {
        t: Date.now(),
        thread: threadId,
        heapUsed: heap.used_heap_size,
        heapPhysical: heap.total_physical_size,
        external: heap.external_memory,
        spaces,
      };
    }
    try {
      // One write per line with O_APPEND: lines from the process's threads do not interleave.
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    } catch {
      // the bench's directory is gone: the run is over
    }
  };
  const every = Number(process.env.HEAP_PROBE_EVERY_MS);
  const interval = Number.isInteger(every) && every >= 1_000 ? every : 10_000;
  if (mode === 'major') {
    // The entry is delivered after the collection, on the thread's own event loop: the few
    // objects allocated in between sit in the new space, which the soak's verdict leaves out.
    let last = 0;
    const observer = new PerformanceObserver((list) => {
      const major = list
        .getEntries()
        .some((entry) => entry.detail && entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
      const now = Date.now();
      if (!major || now - last < interval) return;
      last = now;
      probe();
    });
    observer.observe({ entryTypes: ['gc'] });
  } else {
    // Each process (and thread) starts its rhythm at a random point of the interval: started
    // together, the set's processes would otherwise collect in the same second every time, and
    // that one shared pause would decide the p99 of the minutes it falls in.
    const start = setTimeout(
      () => {
        probe();
        setInterval(probe, interval).unref();
      },
      Math.floor(Math.random() * interval),
    );
    start.unref();
  }
}
