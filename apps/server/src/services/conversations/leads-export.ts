import type { Queryable } from '../../db/queryable.js';
import { iso } from '../context.js';
import { type LeadFilters, whereLeadFilters } from './lead-filters.js';

/** Rows read per query while exporting: the export streams, it never holds every lead. */
const EXPORT_BATCH = 500;

/** The CSV columns of the leads export, in order. */
export const LEAD_CSV_COLUMNS = [
  'created_at',
  'email',
  'name',
  'phone',
  'agent_id',
  'agent_name',
  'conversation_id',
  'site_user_id',
  'pushed_at',
  'push_error',
] as const;

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection, OWASP).
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell: a cell that a spreadsheet would run as a formula gets a leading `'`; then
 * RFC 4180 quoting (a cell with a comma, quote, CR, LF or an edge space is quoted, quotes doubled).
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line (CRLF-terminated, RFC 4180). */
export function csvLine(cells: ReadonlyArray<string | number | null>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * The workspace's leads as CSV lines, newest first, filtered like the list: the header line,
 * then one line per lead, read in keyset batches of {@link EXPORT_BATCH}.
 */
export async function* leadCsvLines(
  options: { db: Queryable; workspaceId: string } & LeadFilters,
): AsyncGenerator<string> {
  yield csvLine(LEAD_CSV_COLUMNS);
  // A workspace has few agents: their names once, instead of a join per batch.
  const agents = await options.db
    .selectFrom('agents')
    .select(['id', 'name'])
    .where('workspace_id', '=', options.workspaceId)
    .execute();
  const agentNames = new Map(agents.map((agent) => [agent.id, agent.name]));
  let before: string | null = null;
  for (;;) {
    let query = whereLeadFilters(
      options.db.selectFrom('leads').selectAll().where('workspace_id', '=', options.workspaceId),
      options,
    )
      .orderBy('id', 'desc')
      .limit(EXPORT_BATCH);
    if (before !== null) query = query.where('id', '<', before);
    const rows = await query.execute();
    for (const row of rows) {
      yield csvLine([
        iso(row.created_at),
        row.email,
        row.name,
        row.phone,
        row.agent_id,
        agentNames.get(row.agent_id) ?? null,
        row.conversation_id,
        row.site_user_id === null ? null : Number(row.site_user_id),
        iso(row.pushed_at),
        row.push_error,
      ]);
    }
    const last = rows.at(-1);
    if (rows.length < EXPORT_BATCH || !last) return;
    before = last.id;
  }
}
