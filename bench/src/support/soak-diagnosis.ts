/**
 * Where a soak's slow requests spent their time, read from the processes' own logs after the run:
 * the service's time for each request (its `request completed` line), nginx's time (its access
 * log), and the background jobs the workers were running meanwhile (their `job done` lines).
 * The bench's time minus nginx's is the client side (the bench process, the loopback); nginx's
 * minus the service's is the proxy and the connection to the instance.
 */
import { formatMs, summarize } from './latency.js';
import { clock, type MinuteRecord, slowestRecords } from './soak-report.js';

/** One background job as a worker ran it: epoch ms of its start and end. */
export type JobSpan = { name: string; worker: string; start: number; end: number };

/** One request as the service logged it: its route, when it completed (epoch ms) and its time. */
export type ServedRequest = { route: string; end: number; ms: number };

/**
 * What the service's JSON log says: each request's time by request id, the route of each request
 * id, the requests in the order they completed, and the jobs it ran.
 */
export type ServiceLog = {
  responseMs: Map<string, number>;
  routeOf: Map<string, string>;
  served: ServedRequest[];
  jobs: JobSpan[];
};

/** An empty log to read into. */
export function emptyServiceLog(): ServiceLog {
  return { responseMs: new Map(), routeOf: new Map(), served: [], jobs: [] };
}

/** `GET /api/v1/admin/agents/01J.../sources` as `GET /api/v1/admin/agents/:id/sources`. */
export function routeName(method: string, url: string): string {
  const path = url
    .replace(/\/[0-9A-HJKMNP-TV-Z]{26}(?=\/|\?|$)/gi, '/:id')
    .replace(/\/[0-9a-f-]{36}(?=\/|\?|$)/gi, '/:id');
  return `${method} ${path}`;
}

/**
 * Reads pino JSON lines: `request completed` lines give a request id's `responseTime`, `job done`
 * lines a job's end (`time`) and duration (`ms`). Other and unreadable lines are skipped.
 */
export function readServiceLog(text: string, processName: string, into?: ServiceLog): ServiceLog {
  const log: ServiceLog = into ?? emptyServiceLog();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (entry.msg === 'incoming request' && typeof entry.reqId === 'string') {
      const req = (entry.req ?? {}) as Record<string, unknown>;
      log.routeOf.set(entry.reqId, routeName(String(req.method ?? '?'), String(req.url ?? '?')));
    } else if (entry.msg === 'request completed' && typeof entry.reqId === 'string') {
      const ms = Number(entry.responseTime);
      if (!Number.isFinite(ms)) continue;
      log.responseMs.set(entry.reqId, ms);
      const end = typeof entry.time === 'number' ? entry.time : 0;
      log.served.push({ route: log.routeOf.get(entry.reqId) ?? '?', end, ms });
    } else if (entry.msg === 'job done' && typeof entry.time === 'number') {
      const ms = Number(entry.ms);
      if (!Number.isFinite(ms)) continue;
      log.jobs.push({
        name: String(entry.job ?? '?'),
        worker: processName,
        start: entry.time - ms,
        end: entry.time,
      });
    }
  }
  return log;
}

/** The jobs running at some moment of [from, to] (epoch ms). */
export function jobsDuring(jobs: readonly JobSpan[], from: number, to: number): JobSpan[] {
  return jobs.filter((job) => job.start < to && job.end > from);
}

/** Seconds of job running (summed over jobs, so two at once count twice) within [from, to). */
export function jobSeconds(jobs: readonly JobSpan[], from: number, to: number): number {
  let ms = 0;
  for (const job of jobs) ms += Math.max(0, Math.min(job.end, to) - Math.max(job.start, from));
  return ms / 1000;
}

/** "2 × index-document, 1 × embed-chunks" for the jobs given; "–" for none. */
function jobList(jobs: readonly JobSpan[]): string {
  if (jobs.length === 0) return '–';
  const counts = new Map<string, number>();
  for (const job of jobs) counts.set(job.name, (counts.get(job.name) ?? 0) + 1);
  return [...counts].map(([name, n]) => `${n} × ${name}`).join(', ');
}

/**
 * The slowest successful requests with their time split: the bench's, nginx's (`nginxMs` by
 * request id) and the service's, and the jobs running while each was in flight. `started` is the
 * run's start (epoch ms): a record's `at` counts from it.
 */
export function slowestSplitRows(
  records: readonly MinuteRecord[],
  count: number,
  started: number,
  nginxMs: ReadonlyMap<string, number>,
  service: ServiceLog,
): string[][] {
  return slowestRecords(records, count).map((r) => {
    const from = started + (r.at ?? 0) * 1000;
    const id = r.requestId ?? '';
    const proxy = nginxMs.get(id);
    const own = service.responseMs.get(id);
    return [
      clock(r.at ?? 0),
      r.kind,
      formatMs(r.ms),
      proxy === undefined ? '?' : formatMs(proxy),
      own === undefined ? '?' : formatMs(own),
      jobList(jobsDuring(service.jobs, from, from + r.ms)),
    ];
  });
}

/**
 * Per minute after the first: the bench's p99, the service's own p99 over the same requests (those
 * found in its log), and the seconds of background jobs the workers ran in that minute.
 */
export function minuteSplitRows(
  records: readonly MinuteRecord[],
  started: number,
  service: ServiceLog,
): string[][] {
  const minutes = [...new Set(records.map((r) => r.minute))].filter((m) => m > 0).sort((a, b) => a - b);
  return minutes.map((minute) => {
    const here = records.filter((r) => r.minute === minute && r.ok);
    const own = here
      .map((r) => service.responseMs.get(r.requestId ?? ''))
      .filter((ms): ms is number => ms !== undefined);
    const from = started + minute * 60_000;
    return [
      String(minute + 1),
      formatMs(summarize(here.map((r) => r.ms)).p99),
      own.length > 0 ? formatMs(summarize(own).p99) : '?',
      jobSeconds(service.jobs, from, from + 60_000).toFixed(1),
    ];
  });
}

/**
 * How often a job was running while a request was in flight: among all successful requests and
 * among the `count` slowest. Equal shares say the jobs do not explain the slow ones.
 */
export function jobOverlapShares(
  records: readonly MinuteRecord[],
  count: number,
  started: number,
  jobs: readonly JobSpan[],
): { all: number; slowest: number } {
  const ok = records.filter((r) => r.ok && r.at !== undefined && r.minute > 0);
  const overlaps = (r: MinuteRecord) => {
    const from = started + (r.at ?? 0) * 1000;
    return jobsDuring(jobs, from, from + r.ms).length > 0;
  };
  const slow = [...ok].sort((a, b) => b.ms - a.ms).slice(0, count);
  const share = (list: MinuteRecord[]) =>
    list.length === 0 ? 0 : list.filter(overlaps).length / list.length;
  return { all: share(ok), slowest: share(slow) };
}

/** A small seeded generator (mulberry32), so the shuffle below gives the same answer each time. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * What the p99 flatness rule gives by chance alone: the run's own successful request times after
 * the first minute, shuffled across its minutes (each keeping its size) `trials` times; the share
 * of minutes whose p99 leaves ±`band` of the median minute's, and the share of shuffled runs with
 * at least one such minute (how often a set whose minutes differ only by chance fails the rule).
 * Near the real run's share, the minutes outside are the sampling noise of a minute's few slowest
 * requests, not slow moments.
 */
export function shuffledOutsideShare(
  records: readonly MinuteRecord[],
  band: number,
  trials = 200,
): { minutes: number; runs: number } {
  const minutes = [...new Set(records.map((r) => r.minute))].filter((m) => m > 0);
  const sizes = minutes
    .map((minute) => records.filter((r) => r.minute === minute && r.ok).length)
    .filter((n) => n >= 20);
  const pool = records.filter((r) => r.minute > 0 && r.ok).map((r) => r.ms);
  if (sizes.length < 2) return { minutes: 0, runs: 0 };
  const random = seeded(22);
  let outside = 0;
  let failing = 0;
  for (let trial = 0; trial < trials; trial += 1) {
    for (let i = pool.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [pool[i], pool[j]] = [pool[j] as number, pool[i] as number];
    }
    let offset = 0;
    const p99s = sizes.map((n) => {
      const p99 = summarize(pool.slice(offset, offset + n)).p99;
      offset += n;
      return p99;
    });
    const median = [...p99s].sort((a, b) => a - b)[Math.floor(p99s.length / 2)] ?? 0;
    const here = p99s.filter((p) => Math.abs(p - median) > band * median).length;
    outside += here;
    if (here > 0) failing += 1;
  }
  return { minutes: outside / (trials * sizes.length), runs: failing / trials };
}

/**
 * Each route's service time at the start and at the end of the run: p50/p99 and count in the
 * second minute (the first after the warm-up) and in the last full minute. A route whose p99
 * climbs while the others hold gets slower as the run's data grows.
 */
export function routeGrowthRows(log: ServiceLog, started: number, minutes: number): string[][] {
  const first = [started + 60_000, started + 120_000] as const;
  const last = [started + (minutes - 1) * 60_000, started + minutes * 60_000] as const;
  const within = (route: string, [from, to]: readonly [number, number]) =>
    log.served.filter((r) => r.route === route && r.end >= from && r.end < to).map((r) => r.ms);
  const routes = [...new Set(log.served.map((r) => r.route))].sort();
  return routes
    .map((route) => ({ route, early: summarize(within(route, first)), late: summarize(within(route, last)) }))
    .filter(({ early, late }) => early.count >= 5 && late.count >= 5)
    .map(({ route, early, late }) => [
      route,
      String(early.count),
      formatMs(early.p50),
      formatMs(early.p99),
      String(late.count),
      formatMs(late.p50),
      formatMs(late.p99),
      `${(late.p50 / Math.max(early.p50, 0.1)).toFixed(2)}×`,
    ]);
}

/**
 * CPU time used so far, in ms, read together `at` minutes into the run: the bench process itself,
 * the set's service processes, PostgreSQL's processes, and the whole machine (all cores).
 */
export type CpuSample = { at: number; bench: number; set: number; postgres: number; machine: number };

/**
 * Per full minute: requests started, CPU ms per request of the bench, the set and PostgreSQL, and
 * how busy the machine was (share of `cores`). The bench does the same work for every request, so
 * its CPU per request is the control: when it rises with the others, the machine's CPU got slower
 * (another tenant of the host, a throttled core), not the service's work heavier.
 */
export function cpuMinuteRows(
  samples: readonly CpuSample[],
  records: readonly MinuteRecord[],
  cores: number,
): string[][] {
  const rows: string[][] = [];
  const last = Math.floor(samples.at(-1)?.at ?? 0);
  for (let minute = 0; minute < last; minute += 1) {
    const from = samples.find((s) => s.at >= minute);
    const to = samples.find((s) => s.at >= minute + 1);
    if (!from || !to || to.at <= from.at) continue;
    const n = records.filter((r) => r.minute === minute).length;
    if (n === 0) continue;
    const per = (key: 'bench' | 'set' | 'postgres') => ((to[key] - from[key]) / n).toFixed(2);
    const busy = (to.machine - from.machine) / ((to.at - from.at) * 60_000 * cores);
    rows.push([
      String(minute + 1),
      String(n),
      per('bench'),
      per('set'),
      per('postgres'),
      `${(busy * 100).toFixed(0)} %`,
    ]);
  }
  return rows;
}
