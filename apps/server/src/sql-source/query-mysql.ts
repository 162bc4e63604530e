import { connect, isIP } from 'node:net';
import mysql from 'mysql2/promise';
import type { RawResult, SqlQueryPlan } from './sql-query-plan.js';

/** Grace on top of the server's statement limit before the client gives up on its own. */
const CLIENT_GRACE_MS = 2_000;

/**
 * Runs `plan.sql` on MySQL or MariaDB in a READ ONLY transaction that is always rolled back, on a
 * socket opened to the vetted address. Throws the driver's error.
 */
export async function queryMysql(plan: SqlQueryPlan): Promise<RawResult> {
  const connection = await mysql.createConnection({
    // `host` only names the server for TLS; the socket below is what actually connects (pinned).
    host: plan.host,
    port: plan.port,
    stream: () => connect({ host: plan.address, port: plan.port }),
    database: plan.database,
    user: plan.user,
    password: plan.password,
    ssl: plan.ssl ? { rejectUnauthorized: true, verifyIdentity: isIP(plan.host) === 0 } : undefined,
    connectTimeout: plan.connectTimeoutMs,
    multipleStatements: false,
    // A hostile server may ask for a local file (LOAD DATA LOCAL INFILE): never offer it.
    flags: ['-LOCAL_FILES'],
    rowsAsArray: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  // A dropped connection is emitted as 'error'; unhandled, it would crash the process.
  connection.on('error', () => {});
  try {
    await connection.query('SET SESSION TRANSACTION READ ONLY');
    // MariaDB limits statements in seconds, MySQL 5.7.8+ limits SELECTs in ms: one of the two is unknown.
    await connection
      .query(`SET SESSION max_statement_time = ${plan.statementTimeoutMs / 1000}`)
      .catch(() => {});
    await connection
      .query(`SET SESSION max_execution_time = ${Math.ceil(plan.statementTimeoutMs)}`)
      .catch(() => {});
    await connection.query('START TRANSACTION READ ONLY');
    const [rows, fields] = await connection.query({
      sql: plan.sql,
      timeout: plan.statementTimeoutMs + CLIENT_GRACE_MS,
    });
    await connection.query('ROLLBACK').catch(() => {});
    return { columns: fields.map((field) => field.name), rows: arrayRows(rows) };
  } finally {
    await connection.end().catch(() => connection.destroy());
  }
}

/** With `rowsAsArray`, a SELECT answers with one array per row. */
function arrayRows(result: unknown): unknown[][] {
  const list: readonly unknown[] = Array.isArray(result) ? result : [];
  const rows: unknown[][] = [];
  for (const row of list) if (isRow(row)) rows.push(row);
  return rows;
}

function isRow(value: unknown): value is unknown[] {
  return Array.isArray(value);
}
