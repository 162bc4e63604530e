import { isIP } from 'node:net';
import pg from 'pg';
import type { RawResult, SqlQueryPlan } from './sql-query-plan.js';

/** Grace on top of the server's statement_timeout before the client gives up on its own. */
const CLIENT_GRACE_MS = 2_000;

/**
 * Runs `plan.sql` on PostgreSQL in a READ ONLY transaction that is always rolled back, over one
 * client connected to the vetted address. Throws the driver's error.
 */
export async function queryPostgres(plan: SqlQueryPlan): Promise<RawResult> {
  const client = new pg.Client({
    host: plan.address,
    port: plan.port,
    database: plan.database,
    user: plan.user,
    password: plan.password,
    // SNI and certificate checks use the name the admin gave, while the socket goes to the pinned IP.
    ssl: plan.ssl
      ? { rejectUnauthorized: true, servername: isIP(plan.host) === 0 ? plan.host : undefined }
      : false,
    connectionTimeoutMillis: plan.connectTimeoutMs,
    statement_timeout: plan.statementTimeoutMs,
    idle_in_transaction_session_timeout: plan.statementTimeoutMs + CLIENT_GRACE_MS,
    query_timeout: plan.statementTimeoutMs + CLIENT_GRACE_MS,
    application_name: 'chat-agent sql source',
  });
  // A dropped connection is emitted as 'error'; unhandled, it would crash the process.
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('BEGIN TRANSACTION READ ONLY');
    // The extended protocol runs exactly one statement: a smuggled `; …` is a server-side error.
    const query = { text: plan.sql, rowMode: 'array' as const, queryMode: 'extended' };
    const result = await client.query<unknown[]>(query);
    await client.query('ROLLBACK').catch(() => {});
    return { columns: result.fields.map((field) => field.name), rows: result.rows };
  } finally {
    await client.end().catch(() => {});
  }
}
