import { sql } from 'kysely';
import type { TestApp } from './test-app.js';

/** Row counts of every table of the service's schema: a refused request stores nothing. */
export async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(
    t.database.db,
  );
  const counts: Record<string, number> = {};
  for (const { table_name: name } of tables.rows) {
    const result = await sql<{ n: string }>`select count(*)::text as n from ${sql.table(name)}`.execute(
      t.database.db,
    );
    counts[name] = Number(result.rows[0]?.n ?? -1);
  }
  return counts;
}
