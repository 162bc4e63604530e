import { isIP } from 'node:net';
import { checkUrl, type Resolve } from '../outbound/index.js';
import { queryPostgres } from './query-postgres.js';
import type { RawResult, SqlQueryPlan } from './sql-query-plan.js';
import { isValidSqlHost, type SqlConnectionConfig, type SqlEngine } from './sql-source-config.js';

/** Rows kept from one run; one more is fetched to tell that the result was cut. */
export const DEFAULT_ROW_CAP = 5_000;
/** How long the server may spend on the query. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 15_000;
/** How long connecting (TCP, TLS and login) may take. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Longest text (and binary) kept per cell, in UTF-8 bytes; longer cells are cut. */
export const DEFAULT_MAX_CELL_BYTES = 1_048_576;

/** Where a run is about to connect: the pinned address plus the name used for TLS. */
export type SqlConnectTarget = { engine: SqlEngine; host: string; address: string; port: number };

/** Options of `runSelect`: guard settings, limits and test seams. */
export type RunSelectOptions = {
  /** SAFE_URL_ALLOW entries (`host` or `host:port`); default none. */
  allow?: readonly string[];
  /** Injectable resolver for the guard (tests); defaults to the system resolver. */
  resolve?: Resolve;
  rowCap?: number;
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
  maxCellBytes?: number;
  /** Called with the pinned target right before connecting; throwing aborts the run (tests, audit). */
  beforeConnect?: (target: SqlConnectTarget) => void;
  /** Replaces the real drivers (tests); defaults to `pg` and `mysql2`. */
  drivers?: Partial<Record<SqlEngine, (plan: SqlQueryPlan) => Promise<RawResult>>>;
};

/** The rows of one run (at most the cap; `truncated` when there were more), or why it failed. */
export type SelectResult =
  | { ok: true; columns: string[]; rows: Record<string, unknown>[]; truncated: boolean }
  | { ok: false; reason: string };

const DRIVERS: Record<SqlEngine, (plan: SqlQueryPlan) => Promise<RawResult>> = {
  postgres: queryPostgres,
  // The MySQL driver is loaded on the first MySQL source's run: most instances have none.
  mysql: async (plan) => (await import('./query-mysql.js')).queryMysql(plan),
};

/**
 * Runs a source query read-only: the host must pass the crawl-safety guard, the connection is
 * pinned to the vetted address, and the row cap and statement timeout are enforced by the server.
 * Does not validate the query itself: call `validateSelect` first. Never throws; never reports the
 * password.
 */
export async function runSelect(
  config: SqlConnectionConfig & { query: string },
  options: RunSelectOptions = {},
): Promise<SelectResult> {
  const rowCap = positiveInteger(options.rowCap, DEFAULT_ROW_CAP);
  const statementTimeoutMs = positiveInteger(options.statementTimeoutMs, DEFAULT_STATEMENT_TIMEOUT_MS);
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
  const maxCellBytes = positiveInteger(options.maxCellBytes, DEFAULT_MAX_CELL_BYTES);

  const host = config.host.trim().toLowerCase();
  if (!isValidSqlHost(host))
    return { ok: false, reason: 'refused: the host is not a valid host name or IP address' };
  // The guard speaks URLs; the scheme does not matter to it, but the port does (allow entries are host[:port]).
  const check = await checkUrl(`http://${isIP(host) === 6 ? `[${host}]` : host}:${config.port}/`, {
    allow: options.allow ?? [],
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  if (!check.ok) return { ok: false, reason: check.reason };
  const address = check.addresses[0];
  if (address === undefined) return { ok: false, reason: 'refused: the host has no vetted address' };

  const plan: SqlQueryPlan = {
    host,
    address,
    port: config.port,
    database: config.database,
    user: config.user,
    password: config.password,
    ssl: config.ssl,
    sql: wrapWithLimit(config.query, rowCap),
    statementTimeoutMs,
    connectTimeoutMs,
  };
  try {
    options.beforeConnect?.({ engine: config.engine, host, address, port: config.port });
    const raw = await (options.drivers?.[config.engine] ?? DRIVERS[config.engine])(plan);
    const kept = raw.rows.slice(0, rowCap);
    const columns = uniqueNames(raw.columns);
    const rows = kept.map((values) =>
      Object.fromEntries(columns.map((name, index) => [name, capCell(values[index], maxCellBytes)])),
    );
    return { ok: true, columns, rows, truncated: raw.rows.length > rowCap };
  } catch (error) {
    return { ok: false, reason: `failed: ${scrub(describeError(error), config.password)}` };
  }
}

/**
 * Caps the rows on the server: the query becomes a derived table. The newlines keep a trailing
 * `--` comment in the query from swallowing the closing parenthesis.
 */
export function wrapWithLimit(query: string, rowCap: number): string {
  return `SELECT * FROM (\n${query.trim().replace(/;\s*$/, '')}\n) AS q LIMIT ${rowCap + 1}`;
}

/** Cuts a string or binary cell to `maxBytes` UTF-8 bytes (never mid-character); other values pass. */
export function capCell(value: unknown, maxBytes: number): unknown {
  if (Buffer.isBuffer(value)) return value.length > maxBytes ? value.subarray(0, maxBytes) : value;
  if (typeof value !== 'string' || value.length <= maxBytes / 3) return value;
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length <= maxBytes) return value;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/** Duplicate column names (`SELECT a.id, b.id`) get `_2`, `_3`… so no value is lost. */
function uniqueNames(columns: readonly string[]): string[] {
  const seen = new Set<string>();
  return columns.map((column) => {
    let name = column;
    for (let n = 2; seen.has(name); n += 1) name = `${column}_${n}`;
    seen.add(name);
    return name;
  });
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    const message = error.message.trim() !== '' ? error.message.trim() : (code ?? error.name);
    return message;
  }
  return String(error);
}

/** Drivers may echo connection details; the password must never reach a stored reason or a log. */
function scrub(message: string, password: string): string {
  return password === '' ? message : message.split(password).join('[redacted]');
}

function positiveInteger(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : fallback;
}
