import {
  DEFAULT_SQL_PORTS,
  SQL_PREVIEW_ROWS,
  type TSourceCreateSql,
  type TSqlTestResult,
} from '@service/contract';
import { AppError } from '../../errors/app-error.js';
import { formatValue } from '../../sql-source/rows-to-documents.js';
import { runSelect } from '../../sql-source/run-select.js';
import { validateSelect } from '../../sql-source/validate-select.js';
import type { TenantScope } from '../context.js';
import { requireAgent } from '../require-agent.js';

/**
 * Tests an SQL source before it is saved: the same read-only SELECT check as creating one (422
 * `errors.query`), then the query through the same guarded runner as the fetch job (host vetted
 * and pinned, read-only transaction, statement timeout), capped at {@link SQL_PREVIEW_ROWS} rows.
 * Stores nothing; the password is never in the answer.
 */
export async function testSqlSource(
  scope: TenantScope,
  agentId: string,
  input: TSourceCreateSql,
  options: { allow: readonly string[] },
): Promise<TSqlTestResult> {
  await requireAgent(scope.db, scope.workspaceId, agentId);
  const check = validateSelect(input.query, input.engine);
  if (!check.ok) {
    throw new AppError('validation_failed', { message: check.reason, errors: { query: [check.reason] } });
  }
  const { engine, host, database, user, password, ssl } = input;
  const port = input.port ?? DEFAULT_SQL_PORTS[engine];
  const result = await runSelect(
    { engine, host, port, database, user, password, ssl, query: check.sql },
    { allow: options.allow, rowCap: SQL_PREVIEW_ROWS },
  );
  if (!result.ok) return { ok: false, reason: result.reason, columns: [], rows: [] };
  return {
    ok: true,
    reason: null,
    columns: result.columns,
    rows: result.rows.map((row) =>
      Object.fromEntries(result.columns.map((column) => [column, formatValue(row[column]) ?? null])),
    ),
  };
}
