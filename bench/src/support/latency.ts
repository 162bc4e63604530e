/**
 * Latency and throughput reporting for the in-process benchmarks (retrieval, indexing): the
 * percentiles of a list of timings, ratios, and a plain Markdown table.
 */

/** Percentiles (nearest rank) and mean of a list of timings, in milliseconds. */
export type LatencySummary = {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
};

/** Summarizes timings in ms; all zeros for an empty list. */
export function summarize(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { count: 0, mean: 0, p50: 0, p95: 0, p99: 0, max: 0 };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (quantile: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1)] ?? 0;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { count: sorted.length, mean, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted.at(-1) ?? 0 };
}

/** Milliseconds with one decimal below 100, whole above. */
export function formatMs(ms: number): string {
  return ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** Two decimals, or two significant digits for small ratios (0.0074x rather than 0.01x). */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  return `${ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2)}x`;
}

/** A count per second, whole. */
export function formatRate(count: number, ms: number): string {
  return ms > 0 ? ((count * 1000) / ms).toFixed(0) : 'n/a';
}

/** A Markdown table: the first column left-aligned, the others right-aligned. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((cells) => (cells[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => `${'-'.repeat(width + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** The value of `--name value` (or `--name=value`) on the command line, if given. */
export function argument(name: string, argv: readonly string[] = process.argv.slice(2)): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const item = argv[i] ?? '';
    if (item === `--${name}`) return argv[i + 1];
    if (item.startsWith(`--${name}=`)) return item.slice(name.length + 3);
  }
  return undefined;
}

/** A positive integer list such as `10000,100000` from `raw`, or `fallback` when absent. */
export function positiveIntegers(
  raw: string | undefined,
  fallback: readonly number[],
  what: string,
): number[] {
  if (raw === undefined || raw.trim() === '') return [...fallback];
  const values = raw.split(',').map((part) => Number(part.trim().replace(/_/g, '')));
  if (values.some((value) => !Number.isInteger(value) || value <= 0)) {
    throw new Error(`${what} must be positive integers separated by commas, got ${JSON.stringify(raw)}`);
  }
  return values;
}
