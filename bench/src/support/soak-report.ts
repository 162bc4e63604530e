/**
 * The soak's schedule and its report: which requests each 100 ms tick sends, the per-minute
 * table, the memory slopes and the verdict on the targets (zero errors, no memory growth trend,
 * p99 flat within ±20 % across minutes).
 */
import { formatMs, summarize } from './latency.js';

/** The kinds of request the soak sends, and each one's share of the traffic. */
export const MIX = {
  'widget.init': 0.2,
  'widget.message': 0.25,
  'admin.read': 0.35,
  'site.sync': 0.15,
  upload: 0.05,
} as const;
export type Kind = keyof typeof MIX;
export const KINDS = Object.keys(MIX) as Kind[];

/**
 * One finished request: the minute it started in, its kind, its time and whether it succeeded;
 * `at` is when it started, in seconds since the soak's start.
 */
export type MinuteRecord = {
  minute: number;
  kind: Kind;
  ms: number;
  ok: boolean;
  at?: number;
  /** The service's request id (the `x-request-id` answer header), when it answered. */
  requestId?: string;
};
/** One memory reading of a process, `at` in minutes since the start. */
export type Sample = { name: string; at: number; mb: number };

/** Ticks are 100 ms apart. */
const TICKS_PER_SECOND = 10;

/**
 * A fixed schedule at `rate` requests per second: tick `n` gets the requests whose running total
 * of each kind (rate × share × elapsed seconds) crosses a whole number at that tick, so every
 * kind is sent evenly spread and the total is exactly the rate over any whole second.
 */
export function buildMix(rate: number): (tick: number) => Kind[] {
  return (tick) => {
    const kinds: Kind[] = [];
    for (const kind of KINDS) {
      const perTick = (rate * MIX[kind]) / TICKS_PER_SECOND;
      const due = Math.floor((tick + 1) * perTick + 1e-9) - Math.floor(tick * perTick + 1e-9);
      for (let i = 0; i < due; i += 1) kinds.push(kind);
    }
    return kinds;
  };
}

/** Per minute: requests, errors, p50/p99 of the successful ones, and each kind's p99. */
export function minuteRows(records: readonly MinuteRecord[]): string[][] {
  const last = Math.max(0, ...records.map((r) => r.minute));
  const rows: string[][] = [];
  for (let minute = 0; minute <= last; minute += 1) {
    const here = records.filter((r) => r.minute === minute);
    if (here.length === 0) continue;
    const ok = summarize(here.filter((r) => r.ok).map((r) => r.ms));
    rows.push([
      String(minute + 1),
      String(here.length),
      String(here.filter((r) => !r.ok).length),
      formatMs(ok.p50),
      formatMs(ok.p99),
      ...KINDS.map((kind) => {
        const times = here.filter((r) => r.ok && r.kind === kind).map((r) => r.ms);
        return times.length > 0 ? formatMs(summarize(times).p99) : '–';
      }),
    ]);
  }
  return rows;
}

/** The least-squares slope of `y` over `x`; 0 for fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

export type MemoryTrend = {
  name: string;
  /** How many readings the process had. */
  readings: number;
  first: number;
  last: number;
  max: number;
  slope: number;
};

/** Each process's memory: first, last and largest reading, and the slope (MB/min) after minute 1. */
export function memorySlope(samples: readonly Sample[]): MemoryTrend[] {
  const names = [...new Set(samples.map((s) => s.name))];
  return names.map((name) => {
    const mine = samples.filter((s) => s.name === name);
    const settled = mine.filter((s) => s.at >= 1);
    return {
      name,
      readings: mine.length,
      first: mine[0]?.mb ?? 0,
      last: mine.at(-1)?.mb ?? 0,
      max: Math.max(...mine.map((s) => s.mb)),
      slope: slope((settled.length >= 2 ? settled : mine).map((s) => ({ x: s.at, y: s.mb }))),
    };
  });
}

/** A process grows "with a trend" when its slope would add more than this share of its size per hour. */
export const GROWTH_PER_HOUR_MAX = 0.1;
/** Each minute's p99 must stay within this share of the median minute's (after the warm-up minute). */
export const P99_BAND = 0.2;

/** The targets, each with its line: zero errors, no memory growth trend, p99 flat across minutes and without a trend. */
export function verdict(
  records: readonly MinuteRecord[],
  trends: readonly MemoryTrend[],
  /** Which reading `trends` are slopes of, for the memory line. */
  reading = 'RSS',
): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  const errors = records.filter((r) => !r.ok).length;
  lines.push(`${errors === 0 ? 'PASS' : 'FAIL'} errors: ${errors}`);
  const growing = trends.filter((t) => t.slope * 60 > GROWTH_PER_HOUR_MAX * Math.max(t.first, 1));
  lines.push(
    growing.length === 0
      ? `PASS memory (${reading}): no process grows more than ${GROWTH_PER_HOUR_MAX * 100} % an hour at its slope`
      : `FAIL memory (${reading}): ${growing.map((t) => `${t.name} ${t.slope.toFixed(2)} MB/min`).join(', ')}`,
  );
  const minutes = [...new Set(records.map((r) => r.minute))].filter((m) => m > 0).sort((a, b) => a - b);
  // The last minute is often partial (the run ends mid-minute): judged only when it is full enough.
  const p99s = minutes
    .map((minute) => records.filter((r) => r.minute === minute && r.ok).map((r) => r.ms))
    .filter((times) => times.length >= 20)
    .map((times) => summarize(times).p99);
  const sorted = [...p99s].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const outside = p99s.filter((p) => Math.abs(p - median) > P99_BAND * median);
  lines.push(
    p99s.length < 2
      ? 'n/a p99 flatness: fewer than two full minutes after the warm-up'
      : `${outside.length === 0 ? 'PASS' : 'FAIL'} p99 per minute within ±${P99_BAND * 100} % of the median minute (${formatMs(median)} ms): ${outside.length} of ${p99s.length} outside`,
  );
  // The same band for the run's direction: the least-squares line through the minutes' p99s may
  // not rise or fall by more than the band from the first judged minute to the last. A route
  // that slows as data accumulates shows here even while each minute stays inside the band.
  const drift = p99s.length < 2 ? 0 : (slope(p99s.map((y, x) => ({ x, y }))) * (p99s.length - 1)) / median;
  const drifting = Math.abs(drift) > P99_BAND;
  if (p99s.length >= 2) {
    lines.push(
      `${drifting ? 'FAIL' : 'PASS'} p99 trend: ${drift >= 0 ? '+' : ''}${(drift * 100).toFixed(1)} % of the median minute from the first judged minute to the last (least squares; within ±${P99_BAND * 100} %)`,
    );
  }
  return { ok: errors === 0 && growing.length === 0 && outside.length === 0 && !drifting, lines };
}

/** A moment of the run as `m:ss` (minute numbers from 1, as in the per-minute table). */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60) + 1}:${String(whole % 60).padStart(2, '0')}`;
}

/** The `count` slowest successful requests that know when they started, slowest first. */
export function slowestRecords(records: readonly MinuteRecord[], count: number): MinuteRecord[] {
  return records
    .filter((r) => r.ok && r.at !== undefined)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

/**
 * The `count` slowest successful requests, slowest first, with when each started, the instance
 * nginx sent each to (`upstreamOf` a request id, from its access log) and the request id (to find
 * the request in that instance's log).
 */
export function slowestRows(
  records: readonly MinuteRecord[],
  count: number,
  upstreamOf: ReadonlyMap<string, string> = new Map(),
): string[][] {
  return slowestRecords(records, count).map((r) => [
    clock(r.at ?? 0),
    r.kind,
    formatMs(r.ms),
    (r.requestId && upstreamOf.get(r.requestId)) || '?',
    r.requestId || '?',
  ]);
}
