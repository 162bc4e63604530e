import type { SqlConnectionConfig } from '../../src/sql-source/sql-source-config.js';

/** The machine's own database servers, on loopback, as SQL-source tests connect to them. */

/** PostgreSQL at 127.0.0.1:5432 (trust auth), database `postgres`. */
export const LOCAL_POSTGRES: SqlConnectionConfig = {
  engine: 'postgres',
  host: '127.0.0.1',
  port: 5432,
  database: 'postgres',
  user: 'postgres',
  password: '',
  ssl: false,
};

/** MariaDB at 127.0.0.1:3306, root without a password, database `test`. */
export const LOCAL_MARIADB: SqlConnectionConfig = {
  ...LOCAL_POSTGRES,
  engine: 'mysql',
  port: 3306,
  database: 'test',
  user: 'root',
};

/** SAFE_URL_ALLOW entries that let the crawl-safety guard through to each server. */
export const LOCAL_POSTGRES_ALLOW = ['127.0.0.1:5432'];
export const LOCAL_MARIADB_ALLOW = ['127.0.0.1:3306'];
