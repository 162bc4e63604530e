import type { FusedHit, SearchScope } from './fusion.js';

/**
 * Page-level aggregation: several candidate chunks of one page lift the page. Each page's best
 * chunk gets the page's score, its own score plus the page's other candidates' scores, the i-th
 * next best weighted by `decay`^i; the other chunks keep their own scores, so a long page lifts
 * its best chunk without filling the list with its other chunks. `decay` in (0, 1): the lift
 * stays below the best chunk's own score (a geometric series), so a page of many weak matches
 * cannot outrank one strong match by its length alone.
 */
export function aggregatePages(
  fused: readonly FusedHit[],
  documentOf: ReadonlyMap<string, string>,
  decay: number,
): FusedHit[] {
  if (!(decay > 0 && decay < 1)) return [...fused];
  const byPage = new Map<string, FusedHit[]>();
  for (const hit of fused) {
    const page = documentOf.get(hit.id) ?? hit.id;
    const chunks = byPage.get(page);
    if (chunks) chunks.push(hit);
    else byPage.set(page, [hit]);
  }
  const lifted = new Map<string, number>();
  for (const chunks of byPage.values()) {
    const scores = chunks.map((hit) => hit.score).sort((a, b) => b - a);
    const best = chunks.reduce((a, b) => (b.score > a.score ? b : a));
    let score = 0;
    let weight = 1;
    for (const s of scores) {
      score += s * weight;
      weight *= decay;
    }
    lifted.set(best.id, score);
  }
  const order = new Map(fused.map((hit, index) => [hit.id, index]));
  return fused
    .map((hit) => ({ ...hit, score: lifted.get(hit.id) ?? hit.score }))
    .sort((a, b) => b.score - a.score || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** The document of each candidate chunk, read within the workspace and agent. */
export async function documentsOf(scope: SearchScope, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await scope.db
    .selectFrom('chunks')
    .select(['id', 'document_id'])
    .where('workspace_id', '=', scope.workspaceId)
    .where('agent_id', '=', scope.agentId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.document_id]));
}
