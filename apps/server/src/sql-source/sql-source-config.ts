import { isIP } from 'node:net';
import { z } from 'zod';

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
  return isIP(host) !== 0 || HOST_NAME_PATTERN.test(host);
}

const ZColumnName = z.string().trim().min(1).max(128).optional();

/**
 * An SQL knowledge source as the admin submits it. The password is plaintext here; it is sealed
 * with `sealSecret` before it is stored. `port` defaults to the engine's port.
 */
export const ZSqlSourceConfig = z
  .strictObject({
    type: z.literal('sql'),
    engine: z.enum(SQL_ENGINES),
    host: z
      .string()
      .trim()
      .toLowerCase()
      .refine(isValidSqlHost, 'Must be a host name or an IP address, without scheme or port.'),
    port: z.number().int().min(1).max(65535).optional(),
    database: z.string().trim().min(1).max(128),
    user: z.string().min(1).max(128),
    password: z.string().max(1024).describe('May be empty (trust or socket-less auth).'),
    query: z
      .string()
      .trim()
      .min(1)
      .max(MAX_SQL_QUERY_CHARS)
      .describe('One SELECT statement; each result row becomes a document.'),
    ssl: z.boolean().default(false).describe('TLS with certificate and host name verification.'),
    title_column: ZColumnName.describe('Result column giving each document its title'),
    id_column: ZColumnName.describe('Result column giving each document a stable id'),
    url_column: ZColumnName.describe('Result column giving each document an http(s) link'),
  })
  .transform((config) => ({ ...config, port: config.port ?? DEFAULT_SQL_PORTS[config.engine] }));

/** A parsed SQL source config: `port` and `ssl` always set. */
export type TSqlSourceConfig = z.infer<typeof ZSqlSourceConfig>;

/** What `runSelect` needs to reach the database: the connection part of a source config. */
export type SqlConnectionConfig = Pick<
  TSqlSourceConfig,
  'engine' | 'host' | 'port' | 'database' | 'user' | 'password' | 'ssl'
>;

/** Which result columns give each document its title, stable id and link. */
export type SqlColumnOptions = Pick<TSqlSourceConfig, 'title_column' | 'id_column' | 'url_column'>;
