import {
  DEFAULT_SQL_PORTS,
  isValidSqlHost,
  MAX_SQL_QUERY_CHARS,
  SQL_ENGINES,
  type SqlEngine,
  ZSourceCreateSql,
} from '@service/contract';
import type { z } from 'zod';

export { DEFAULT_SQL_PORTS, isValidSqlHost, MAX_SQL_QUERY_CHARS, SQL_ENGINES, type SqlEngine };

/**
 * An SQL knowledge source's settings as submitted (the contract's create body without its
 * name), with `port` defaulted to the engine's. The password is still plaintext here.
 */
export const ZSqlSourceConfig = ZSourceCreateSql.omit({ name: true }).transform((config) => ({
  ...config,
  port: config.port ?? DEFAULT_SQL_PORTS[config.engine],
}));

/** A parsed SQL source config: `port` and `ssl` always set. */
export type TSqlSourceConfig = z.infer<typeof ZSqlSourceConfig>;

/** What `runSelect` needs to reach the database: the connection part of a source config. */
export type SqlConnectionConfig = Pick<
  TSqlSourceConfig,
  'engine' | 'host' | 'port' | 'database' | 'user' | 'password' | 'ssl'
>;

/** Which result columns give each document its title, stable id and link. */
export type SqlColumnOptions = Pick<TSqlSourceConfig, 'title_column' | 'id_column' | 'url_column'>;
