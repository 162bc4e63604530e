import type { TSource, TSourceUpdate } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { DB, SourceRow } from '../db/schema.js';
import { AppError, notFound } from '../errors/app-error.js';
import { recordAudit } from './audit.js';
import { iso, type Queryable, type TenantScope } from './context.js';

/** Lists an agent's sources; an agent of another workspace is a 404. */
export async function listAgentSources(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  agentId: string,
): Promise<TSource[]> {
  const agent = await scope.db
    .selectFrom('agents')
    .select('id')
    .where('workspace_id', '=', scope.workspaceId)
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (!agent) throw notFound();
  const rows = await withCounts(scope.db)
    .where('sources.workspace_id', '=', scope.workspaceId)
    .where('sources.agent_id', '=', agentId)
    .orderBy('sources.id')
    .execute();
  return rows.map(toSource);
}

/** Reads one source of the workspace. */
export async function getSource(
  scope: Pick<TenantScope, 'db' | 'workspaceId'>,
  sourceId: string,
): Promise<TSource> {
  const row = await withCounts(scope.db)
    .where('sources.workspace_id', '=', scope.workspaceId)
    .where('sources.id', '=', sourceId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return toSource(row);
}

/** Changes a synced site's `plugin_base` (only sources a site plugin created have one). Audited. */
export async function updateSource(
  scope: TenantScope,
  sourceId: string,
  input: TSourceUpdate,
): Promise<TSource> {
  await scope.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('sources')
      .select(['id', 'type', 'plugin_base'])
      .where('workspace_id', '=', scope.workspaceId)
      .where('id', '=', sourceId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound();
    // Both sources a site plugin creates (site content, products) know where its routes are:
    // a shop that syncs only products must be able to correct it too.
    if (current.plugin_base === null) {
      throw new AppError('validation_failed', {
        message: 'Only the sources of a synced site have a plugin_base.',
        errors: { plugin_base: ['Only the sources of a synced site have a plugin_base.'] },
      });
    }
    await trx
      .updateTable('sources')
      .set({ plugin_base: input.plugin_base, updated_at: new Date() })
      .where('id', '=', sourceId)
      .where('workspace_id', '=', scope.workspaceId)
      .execute();
    await recordAudit(trx, {
      workspaceId: scope.workspaceId,
      actor: scope.actor,
      action: 'source.updated',
      target: { type: 'source', id: sourceId },
      metadata: { plugin_base: { from: current.plugin_base, to: input.plugin_base } },
      requestId: scope.requestId,
    });
  });
  return getSource(scope, sourceId);
}

function withCounts(db: Queryable | Kysely<DB>) {
  return db
    .selectFrom('sources')
    .selectAll('sources')
    .select((eb) => [
      eb
        .selectFrom('documents')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('documents.source_id', '=', 'sources.id')
        .as('document_count'),
      sql<
        number | null
      >`jsonb_array_length(case when jsonb_typeof(sources.config->'coupons') = 'array' then sources.config->'coupons' end)`.as(
        'coupon_count',
      ),
    ]);
}

function toSource(row: SourceRow & { document_count: string | null; coupon_count: number | null }): TSource {
  return {
    id: row.id,
    agent_id: row.agent_id,
    type: row.type,
    name: row.name,
    status: row.status,
    error: row.error,
    site_url: row.site_url,
    plugin_version: row.plugin_version,
    plugin_base: row.plugin_base,
    last_synced_at: iso(row.last_synced_at),
    document_count: Number(row.document_count ?? 0),
    coupon_count: row.coupon_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
