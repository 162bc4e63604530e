/** The leads filters as typed: search text, agent id, and dates (`YYYY-MM-DD`, the reader's day). */
export type LeadFilterInput = { q: string; agentId: string; from: string; to: string };

/** The start of a local calendar day as an ISO instant; null for no (or an unreadable) date. */
export function dayStart(day: string, addDays = 0): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + addDays);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * The query string of the leads list and export for the filters: `to` is inclusive on screen,
 * so it is sent as the start of the next day (the API's `to` is exclusive).
 */
export function leadQuery(input: LeadFilterInput): string {
  const query = new URLSearchParams();
  const q = input.q.trim();
  if (q) query.set('q', q);
  if (input.agentId) query.set('agent_id', input.agentId);
  const from = dayStart(input.from);
  if (from) query.set('from', from);
  const to = dayStart(input.to, 1);
  if (to) query.set('to', to);
  return query.toString();
}
