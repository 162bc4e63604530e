import { z } from 'zod';
import { zText } from './text.js';

/** The SQL engines a source can read from (MariaDB speaks the `mysql` protocol). */
export const SQL_ENGINES = ['postgres', 'mysql'] as const;

/** One of `SQL_ENGINES`. */
export type SqlEngine = (typeof SQL_ENGINES)[number];

/** The port each engine listens on unless told otherwise. */
export const DEFAULT_SQL_PORTS: Readonly<Record<SqlEngine, number>> = { postgres: 5432, mysql: 3306 };

/** The longest query an admin may store. */
export const MAX_SQL_QUERY_CHARS = 10_000;

// RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, 253 chars at most.
const HOST_NAME_PATTERN =
  /^(?=.{1,253}\.?$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** True for a DNS host name or a bare IPv4/IPv6 literal (no brackets, no port, no scheme). */
export function isValidSqlHost(host: string): boolean {
  if (HOST_NAME_PATTERN.test(host)) return true;
  // An IPv6 literal: the WHATWG URL parser is the reference for what a bracketed host may be.
  if (!/^[0-9a-f:.]+$/i.test(host) || !host.includes(':')) return false;
  try {
    return new URL(`http://[${host}]/`).hostname.length > 2;
  } catch {
    return false;
  }
}

const ZColumnName = zText().trim().min(1).max(128).optional();

/**
 * Body of `POST /agents/{id}/sources` for an SQL source: each row of one read-only SELECT
 * becomes a document. The password is sealed with the service's APP_KEY before it is stored
 * and never shown again; `port` defaults to the engine's.
 */
export const ZSourceCreateSql = z.strictObject({
  type: z.literal('sql'),
  name: zText().trim().max(200).optional(),
  engine: z.enum(SQL_ENGINES),
  host: zText()

    .trim()
    .toLowerCase()
    .refine(isValidSqlHost, 'Must be a host name or an IP address, without scheme or port.'),
  port: z.number().int().min(1).max(65535).optional(),
  database: zText().trim().min(1).max(128),
  user: zText().min(1).max(128),
  password: zText().max(1024).describe('May be empty (trust auth). Stored encrypted, never returned.'),
  query: zText()

    .trim()
    .min(1)
    .max(MAX_SQL_QUERY_CHARS)
    .describe('One SELECT statement; each result row becomes a document.'),
  ssl: z.boolean().default(false).describe('TLS with certificate and host name verification.'),
  title_column: ZColumnName.describe('Result column giving each document its title'),
  id_column: ZColumnName.describe('Result column giving each document a stable id'),
  url_column: ZColumnName.describe('Result column giving each document an http(s) link'),
});
export type TSourceCreateSql = z.infer<typeof ZSourceCreateSql>;

/** Rows a connection test shows (`POST /agents/{id}/sources/test-sql`). */
export const SQL_PREVIEW_ROWS = 3;

/**
 * Answer of `POST /agents/{id}/sources/test-sql` (body: the same `ZSourceCreateSql` as a new
 * source): whether the query ran, read-only, through the crawl-safety guard, and its first rows.
 */
export const ZSqlTestResult = z.object({
  ok: z.boolean().describe('The connection was made and the query ran'),
  reason: zText().nullable().describe('Why not (refused host, connection or query error), verbatim'),
  columns: z.array(zText()),
  rows: z
    .array(z.record(zText(), zText().nullable()))
    .describe(`At most ${SQL_PREVIEW_ROWS} rows, each cell as text (null when empty or binary)`),
});
export type TSqlTestResult = z.infer<typeof ZSqlTestResult>;
