import { type SelectQueryBuilder, sql } from 'kysely';
import type { DB } from '../../db/schema.js';

/** Filters of the leads list and export, combined with AND (all optional). */
export type LeadFilters = {
  agentId?: string | undefined;
  /** Found in the email, name or phone: a case-insensitive substring, matched literally. */
  q?: string | undefined;
  /** `created_at` at or after (ISO 8601). */
  from?: string | undefined;
  /** `created_at` before (ISO 8601). */
  to?: string | undefined;
};

/** A LIKE pattern that finds `text` anywhere, with `%`, `_` and `\` in it matched as themselves. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** Adds the lead filters to a query on `leads` (already scoped to the workspace). */
export function whereLeadFilters<O>(
  query: SelectQueryBuilder<DB, 'leads', O>,
  filters: LeadFilters,
): SelectQueryBuilder<DB, 'leads', O> {
  let out = query;
  if (filters.agentId) out = out.where('agent_id', '=', filters.agentId);
  if (filters.from) out = out.where('created_at', '>=', new Date(filters.from));
  if (filters.to) out = out.where('created_at', '<', new Date(filters.to));
  const q = filters.q?.trim();
  if (q) {
    const pattern = containsPattern(q);
    out = out.where((eb) =>
      eb.or([
        eb(sql`email`, 'ilike', sql`${pattern} escape '\\'`),
        eb(sql`name`, 'ilike', sql`${pattern} escape '\\'`),
        eb(sql`phone`, 'ilike', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  return out;
}
