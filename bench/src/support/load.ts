/**
 * What the benchmarks share around the load itself: the run's settings and header line, and
 * loading a scenario with autocannon into the numbers the results table shows.
 */
import { cpus } from 'node:os';
import autocannon from 'autocannon';

/** Connections autocannon keeps open in every scenario. */
export const CONNECTIONS = 10;
/** Seconds of load before each measured run, whose numbers are discarded. */
export const WARMUP_SECONDS = 1;

/** What the table shows for one scenario; `problem` is a failed after-load check, if any. */
export type Measurement = {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  failures: number;
  problem: string | null;
};

/** What to load, less the settings every scenario shares (connections, duration, worker thread). */
export type LoadTarget = Omit<autocannon.Options, 'connections' | 'duration' | 'workers'>;

/** Seconds from an environment value (BENCH_SECONDS), or `fallback` when it is unset or blank. */
export function readSeconds(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`BENCH_SECONDS must be a positive number of seconds, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** The run's first line: node version, CPUs, connections and timing, after `title`. */
export function describeRun(title: string, seconds: number): string {
  const cpuList = cpus();
  return (
    `${title}: node ${process.version}, ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown CPU'}, ` +
    `${CONNECTIONS} connections, ${seconds} s per scenario after a ${WARMUP_SECONDS} s warm-up`
  );
}

/** Loads `target` for `seconds` and returns what the table shows for it. */
export async function runLoad(name: string, target: LoadTarget, seconds: number): Promise<Measurement> {
  const result = await autocannon({
    ...target,
    connections: CONNECTIONS,
    duration: seconds,
    // The load generator gets its own thread, so it does not share the server's event loop.
    workers: 1,
  });
  return {
    name,
    requestsPerSecond: result.requests.mean,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    failures: result.errors + result.timeouts + result.non2xx,
    problem: null,
  };
}

/** A discarded warm-up of WARMUP_SECONDS, then the measured load of `seconds`. */
export async function measure(name: string, target: LoadTarget, seconds: number): Promise<Measurement> {
  await runLoad(name, target, WARMUP_SECONDS);
  return runLoad(name, target, seconds);
}
