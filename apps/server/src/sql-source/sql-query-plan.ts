/** Everything a driver needs to run one capped query on one vetted address. */
export type SqlQueryPlan = {
  /** The host name the admin gave: for TLS (SNI and certificate name) only, never resolved again. */
  host: string;
  /** The address the guard vetted; the socket connects here. */
  address: string;
  port: number;
  database: string;
  user: string;
  password: string;
  ssl: boolean;
  /** The admin's query already wrapped in the row cap. */
  sql: string;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
};

/** A driver's answer: column names in order, and each row as values in that order. */
export type RawResult = { columns: string[]; rows: unknown[][] };
