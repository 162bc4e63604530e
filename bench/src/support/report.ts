/**
 * Printing a run's results: the table of every scenario, each one's ratio to the bare baseline
 * (the first row), and the failures that void a scenario's numbers.
 */
import type { Measurement } from './load.js';

/** A column of the results table: its title and its cell for one row. */
export type Column = { title: string; cell(row: Measurement): string };

/** autocannon records latency in whole milliseconds, so anything under 1 ms reads as 0. */
function formatLatency(ms: number): string {
  return ms < 1 ? '<1' : ms.toFixed(0);
}

/** Two decimals, or two significant digits for small ratios (0.0074x rather than 0.01x). */
function formatRatio(ratio: number): string {
  return `${ratio >= 0.1 ? ratio.toFixed(2) : ratio.toPrecision(2)}x`;
}

/** A Markdown table: scenario, rate, p50, p99, any extra columns, requests and the ratio to `baseline`. */
function formatTable(
  rows: Measurement[],
  baseline: number,
  options: { rateTitle: string; extraColumns: Column[] },
): string {
  const columns: Column[] = [
    { title: 'scenario', cell: (row) => row.name },
    { title: options.rateTitle, cell: (row) => row.requestsPerSecond.toFixed(0) },
    { title: 'p50 ms', cell: (row) => formatLatency(row.p50) },
    { title: 'p99 ms', cell: (row) => formatLatency(row.p99) },
    ...options.extraColumns,
    { title: 'requests', cell: (row) => String(row.total) },
    { title: 'vs bare', cell: (row) => formatRatio(row.requestsPerSecond / baseline) },
  ];
  const header = columns.map((column) => column.title);
  const body = rows.map((row) => columns.map((column) => column.cell(row)));
  const widths = header.map((title, i) =>
    Math.max(title.length, ...body.map((cells) => (cells[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((width, i) => `${'-'.repeat(width + 1)}${i === 0 ? '-' : ':'}`).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/** Prints the table (the first row is the bare baseline), then each other row's ratio to it. */
export function printComparison(
  rows: Measurement[],
  options: { rateTitle: string; extraColumns?: Column[] },
): void {
  const baseline = rows[0]?.requestsPerSecond ?? 0;
  const table = formatTable(rows, baseline, {
    rateTitle: options.rateTitle,
    extraColumns: options.extraColumns ?? [],
  });
  console.log(`\n${table}\n`);
  for (const row of rows.slice(1)) {
    console.log(`${row.name}: ${formatRatio(row.requestsPerSecond / baseline)} of bare Fastify`);
  }
}

/** Prints why each voided scenario's numbers are void; returns the exit code (1 when one was void, else 0). */
export function reportFailures(rows: Measurement[]): number {
  const failed = rows.filter((row) => row.failures > 0 || row.problem !== null);
  for (const row of failed) {
    if (row.failures > 0) {
      console.error(`${row.name}: ${row.failures} errors, timeouts or non-2xx answers; its numbers are void`);
    }
    if (row.problem !== null) console.error(`${row.name}: ${row.problem}; its numbers are void`);
  }
  return failed.length > 0 ? 1 : 0;
}
