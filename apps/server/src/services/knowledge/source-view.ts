import type { TSource } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { DB, SourceRow } from '../../db/schema.js';
import { iso, type TenantScope } from '../context.js';
import { lastRun, publicConfig, runCounts } from './source-config.js';

/**
 * What reading a source needs: the store, the tenant and the active embedding provider's key
 * (null or absent when vectors are off: `progress.chunks_embedded` is then null).
 */
export type SourceView = Pick<TenantScope, 'db' | 'workspaceId'> & { embeddingsKey?: string | null };

/** Sources with their document and chunk counts, for {@link toSource}. */
export function withCounts(db: Queryable | Kysely<DB>, embeddingsKey: string | null) {
  // Chunks of the source's documents that have a vector under the active provider.
  const embedded = embeddingsKey
    ? sql<string>`(select count(*) from chunks c join documents d on d.id = c.document_id
        where d.source_id = sources.id
          and exists (select 1 from embeddings e
            where e.agent_id = c.agent_id and e.model = ${embeddingsKey} and e.content_hash = c.content_hash))`
    : sql<string>`null`;
  return db
    .selectFrom('sources')
    .selectAll('sources')
    .select((eb) => [
      eb
        .selectFrom('documents')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('documents.source_id', '=', 'sources.id')
        .as('document_count'),
      eb
        .selectFrom('documents')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('documents.source_id', '=', 'sources.id')
        .where('documents.index_status', '=', 'indexed')
        .as('indexed_count'),
      eb
        .selectFrom('documents')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('documents.source_id', '=', 'sources.id')
        .where('documents.index_status', '=', 'failed')
        .as('failed_count'),
      sql<string>`(select count(*) from chunks c join documents d on d.id = c.document_id
        where d.source_id = sources.id)`.as('chunk_count'),
      embedded.as('embedded_count'),
      sql<
        number | null
      >`jsonb_array_length(case when jsonb_typeof(sources.config->'coupons') = 'array' then sources.config->'coupons' end)`.as(
        'coupon_count',
      ),
    ]);
}

type SourceWithCounts = SourceRow & {
  document_count: string | null;
  indexed_count: string | null;
  failed_count: string | null;
  chunk_count: string | null;
  embedded_count: string | null;
  coupon_count: number | null;
};

/** A source row with its counts as the API shows it. */
export function toSource(row: SourceWithCounts, embeddingsKey: string | null): TSource {
  const documents = Number(row.document_count ?? 0);
  const indexed = Number(row.indexed_count ?? 0);
  const failed = Number(row.failed_count ?? 0);
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
    document_count: documents,
    coupon_count: row.coupon_count,
    config: publicConfig(row.type, row.config),
    progress: {
      documents_indexed: indexed,
      documents_pending: documents - indexed - failed,
      documents_failed: failed,
      chunks_total: Number(row.chunk_count ?? 0),
      chunks_embedded: embeddingsKey ? Number(row.embedded_count ?? 0) : null,
      run: runCounts(row.status, row.progress),
      last_run: lastRun(row.progress),
    },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
