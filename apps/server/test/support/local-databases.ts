import { connect } from 'node:net';
import type { SqlConnectionConfig } from '../../src/sql-source/sql-source-config.js';

/**
 * The machine's own database servers, on loopback, as SQL-source tests connect to them.
 * `TEST_SQL_POSTGRES_URL` / `TEST_SQL_MYSQL_URL` point them elsewhere on 127.0.0.1 (another
 * port, user or database); a suite whose server does not answer skips itself by name.
 */

/** Reads a server URL (its host must be 127.0.0.1: tests never leave loopback). */
function serverFromUrl(
  variable: string,
  fallback: string,
  engine: 'postgres' | 'mysql',
): SqlConnectionConfig {
  const raw = process.env[variable] || fallback;
  const url = new URL(raw);
  if (url.hostname !== '127.0.0.1')
    throw new Error(`${variable} must name a server on 127.0.0.1, not ${raw}`);
  return {
    engine,
    host: '127.0.0.1',
    port: Number(url.port || (engine === 'postgres' ? 5432 : 3306)),
    database: decodeURIComponent(url.pathname.slice(1)) || (engine === 'postgres' ? 'postgres' : 'test'),
    user: decodeURIComponent(url.username) || (engine === 'postgres' ? 'postgres' : 'root'),
    password: decodeURIComponent(url.password),
    ssl: false,
  };
}

/** PostgreSQL, by default at 127.0.0.1:5432 (trust auth), user and database `postgres`. */
export const LOCAL_POSTGRES: SqlConnectionConfig = serverFromUrl(
  'TEST_SQL_POSTGRES_URL',
  'postgres://postgres@127.0.0.1:5432/postgres',
  'postgres',
);

/** MariaDB (or MySQL), by default at 127.0.0.1:3306, root without a password, database `test`. */
export const LOCAL_MARIADB: SqlConnectionConfig = serverFromUrl(
  'TEST_SQL_MYSQL_URL',
  'mysql://root@127.0.0.1:3306/test',
  'mysql',
);

/** SAFE_URL_ALLOW entries that let the crawl-safety guard through to each server. */
export const LOCAL_POSTGRES_ALLOW = [`127.0.0.1:${LOCAL_POSTGRES.port}`];
export const LOCAL_MARIADB_ALLOW = [`127.0.0.1:${LOCAL_MARIADB.port}`];

/** The admin connection string of the local PostgreSQL (for the `pg` client the tests seed it with). */
export function localPostgresUrl(): string {
  const { user, password, port, database } = LOCAL_POSTGRES;
  const auth = password
    ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}`
    : encodeURIComponent(user);
  return `postgres://${auth}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

/** Host and port of a server URL such as `TEST_REDIS_URL` (`redis://127.0.0.1:6379`). */
export function serverOf(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port || defaultPort) };
}

/**
 * Why a server cannot be used, as a skip message, or `false` when it accepts TCP connections.
 * Waits at most `timeoutMs`, so a port that drops packets skips instead of hanging the suite.
 */
export function unreachable(
  name: string,
  server: { host: string; port: number },
  timeoutMs = 3_000,
): Promise<string | false> {
  const where = `${server.host}:${server.port}`;
  return new Promise((resolve) => {
    const socket = connect({ host: server.host, port: server.port });
    const done = (reason: string | false) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () =>
      done(`${name} is not reachable at ${where} (no answer in ${timeoutMs} ms)`),
    );
    socket.once('connect', () => done(false));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(`${name} is not reachable at ${where} (${error.code ?? error.message})`),
    );
  });
}
