/** bench:soak's command-line options, each with what it changes; a bad value exits with the usage. */
import { type PostgresChoice, postgresChoice } from './bench-postgres.js';
import { argument } from './latency.js';

export type SoakOptions = {
  minutes: number;
  rate: number;
  instanceCount: number;
  workerCount: number;
  workerNice: string | undefined;
  postgres: PostgresChoice;
  seed: 'yes' | 'no';
  heap: 'yes' | 'major' | 'no';
  heapEverySeconds: number;
  keepReadings: 'yes' | 'no';
  warmupMinutes: number;
  mallocArenas: string | undefined;
  code: 'built' | 'sources';
};

/** Reads the options from the command line; prints the usage and exits 2 on a bad one. */
export function readSoakOptions(): SoakOptions {
  const minutes = Number(argument('minutes') ?? 15);
  const rate = Number(argument('rate') ?? 6);
  const instanceCount = Number(argument('instances') ?? 3);
  const workerCount = Number(argument('workers') ?? 2);
  /** The workers' WORKER_NICE (unset: the service's default). */
  const workerNice = argument('worker-nice');
  /** Which PostgreSQL (support/bench-postgres.ts): `private` (default) or `shared`. */
  const postgres = postgresChoice(argument('postgres'));
  /**
   * `--seed yes` (default): the site's first full sync is sent and indexed before the clock starts,
   * so the run's syncs are edits from the first minute on; `no`: the run's first minute creates the
   * site's posts (the earlier runs in bench/README did that: their minute 2 carried its index jobs).
   */
  const seed = argument('seed') ?? 'yes';
  /**
   * `--heap yes`: each process of the set collects its garbage every 10 s and writes the heap still
   * in use (support/heap-probe.cjs): whether a memory slope is a leak. Off by default: the pauses
   * show in p99. `--heap major`: the same reading, taken right after each major collection V8 runs
   * on its own (at most one per `--heap-every` seconds a process); nothing is collected for it, so
   * the run's latencies are those of a run without the probe.
   */
  const heap = argument('heap') ?? 'no';
  /**
   * `--heap-every N`: seconds between two probes (default 10; with `--heap major`, the least time
   * between two readings of a process). Each forced probe is a full collection in
   * every process of the set, which at 10 s about doubles the set's CPU per request (bench/README,
   * "Soak at twice the rate"); at 60 s a 15-minute run still has 14 readings a process for its slope.
   */
  const heapEverySeconds = Number(argument('heap-every') ?? 10);
  /**
   * `--keep-readings yes`: the heap probe's readings (one JSON line each, a file per process) stay
   * in their directory after the run, which is printed; by default they are deleted.
   */
  const keepReadings = argument('keep-readings') ?? 'no';
  /**
   * Minutes of the same traffic before the measured ones, not in the per-minute figures (its errors
   * still count). The processes start cold: their CPU per request falls for the first minutes while
   * V8 optimizes (bench/README, "Seeded soaks"), which is a fresh process's cost, not the run's trend.
   */
  const warmupMinutes = Number(argument('warmup-minutes') ?? 2);
  /**
   * `--malloc-arenas N`: MALLOC_ARENA_MAX for every process of the set. glibc gives each thread
   * that allocates at once an arena of its own (up to 8 per core); a Node process has a dozen
   * threads, and memory freed inside an arena is not always given back. Unset by default (glibc's
   * own choice), so a run with it says whether the set's RSS growth is the allocator's.
   */
  const mallocArenas = argument('malloc-arenas');
  /**
   * `--code built` (default): the set runs the build (`apps/server/dist`, `npm run build` first),
   * as operators run it; `sources`: the TypeScript through tsx, as the cluster tests do (the soaks
   * in bench/README before 2026-11-29's long run ran that way).
   */
  const code = argument('code') ?? 'built';

  const niceOk = workerNice === undefined || /^(1?[0-9])$/.test(workerNice);
  if (
    !(
      minutes > 0 &&
      rate > 0 &&
      instanceCount >= 1 &&
      workerCount >= 0 &&
      niceOk &&
      postgres &&
      (seed === 'yes' || seed === 'no') &&
      (heap === 'yes' || heap === 'major' || heap === 'no') &&
      Number.isInteger(heapEverySeconds) &&
      heapEverySeconds >= 5 &&
      heapEverySeconds <= 600 &&
      (keepReadings === 'yes' || keepReadings === 'no') &&
      (mallocArenas === undefined || /^[1-9][0-9]?$/.test(mallocArenas)) &&
      (code === 'built' || code === 'sources') &&
      warmupMinutes >= 0
    )
  ) {
    console.error(
      'usage: soak.bench.ts [--minutes 15] [--rate 6] [--instances 3] [--workers 2] [--worker-nice 0-19] [--postgres private|shared] [--seed yes|no] [--heap no|yes|major] [--heap-every 10] [--keep-readings no|yes] [--warmup-minutes 2] [--malloc-arenas 1-99] [--code built|sources]',
    );
    process.exit(2);
  }
  return {
    minutes,
    rate,
    instanceCount,
    workerCount,
    workerNice,
    postgres,
    seed: seed === 'no' ? 'no' : 'yes',
    heap: heap === 'yes' || heap === 'major' ? heap : 'no',
    heapEverySeconds,
    keepReadings: keepReadings === 'yes' ? 'yes' : 'no',
    warmupMinutes,
    mallocArenas,
    code: code === 'sources' ? 'sources' : 'built',
  };
}
