import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { SourceRow } from '../../db/schema.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { indexDocumentSpec } from '../../queue/job-specs.js';
import { sha256Hex } from '../../security/hashing.js';
import { newId } from '../../security/ids.js';

/** A document ready to store: what retrieval reads, plus the plugin's hash. */
export type IncomingDocument = {
  externalId: string;
  kind: string;
  title: string;
  url: string | null;
  language: string | null;
  text: string;
  hash: string;
  metadata: Record<string, unknown>;
  modifiedAt: string | Date | null;
};

/**
 * An item as received: its id and hash, which decide whether it changed, and how to build its
 * document. Building converts HTML to text (the costly part of a sync), so it only runs for
 * items whose hash differs from the stored one.
 */
export type IncomingItem = { externalId: string; hash: string; toDocument(): IncomingDocument };

/**
 * Documents written per statement: each row binds 14 parameters, and a statement may bind at
 * most 65,535 (an unbounded list, such as every article of a knowledge base, would overflow it).
 */
export const DOCUMENT_WRITE_BATCH = 500;

/**
 * Stores a source's documents by hash: items whose hash equals the stored one are skipped;
 * new and changed ones are written (DOCUMENT_WRITE_BATCH per statement), marked pending, and get
 * an index job in the same transaction (so a job exists exactly when its document change commits).
 */
export async function upsertDocuments(
  trx: Queryable,
  queue: JobQueue,
  source: Pick<SourceRow, 'id' | 'workspace_id' | 'agent_id'>,
  incoming: IncomingItem[],
): Promise<{ queued: number; skipped_unchanged: number }> {
  // The same item twice in one call: the last one wins, counted once.
  const byId = new Map(incoming.map((item) => [item.externalId, item]));
  const items = [...byId.values()];
  let queued = 0;
  for (let start = 0; start < items.length; start += DOCUMENT_WRITE_BATCH) {
    queued += await upsertBatch(trx, queue, source, items.slice(start, start + DOCUMENT_WRITE_BATCH));
  }
  return { queued, skipped_unchanged: byId.size - queued };
}

/** Writes one batch of distinct items; returns how many were new or changed (and queued). */
async function upsertBatch(
  trx: Queryable,
  queue: JobQueue,
  source: Pick<SourceRow, 'id' | 'workspace_id' | 'agent_id'>,
  items: IncomingItem[],
): Promise<number> {
  const stored = await trx
    .selectFrom('documents')
    .select(['external_id', 'content_hash'])
    .where('source_id', '=', source.id)
    .where(sql<boolean>`external_id = any(${items.map((item) => item.externalId)}::text[])`)
    .execute();
  const storedHash = new Map(stored.map((row) => [row.external_id, row.content_hash]));
  const changed = items.filter((item) => storedHash.get(item.externalId) !== item.hash);
  if (changed.length === 0) return 0;

  // One statement for the batch: new documents are inserted, changed ones updated.
  const rows = await trx
    .insertInto('documents')
    .values(
      changed.map((item) => {
        const doc = item.toDocument();
        return {
          id: newId(),
          workspace_id: source.workspace_id,
          agent_id: source.agent_id,
          source_id: source.id,
          external_id: doc.externalId,
          kind: doc.kind,
          title: doc.title,
          url: doc.url,
          language: doc.language,
          content_text: doc.text,
          content_hash: doc.hash,
          metadata: JSON.stringify(doc.metadata),
          modified_at: doc.modifiedAt,
          index_status: 'pending' as const,
        };
      }),
    )
    .onConflict((oc) =>
      oc.columns(['source_id', 'external_id']).doUpdateSet((eb) => ({
        kind: eb.ref('excluded.kind'),
        title: eb.ref('excluded.title'),
        url: eb.ref('excluded.url'),
        language: eb.ref('excluded.language'),
        content_text: eb.ref('excluded.content_text'),
        content_hash: eb.ref('excluded.content_hash'),
        metadata: eb.ref('excluded.metadata'),
        modified_at: eb.ref('excluded.modified_at'),
        index_status: eb.ref('excluded.index_status'),
        // The database's clock, as `created_at`: a full sync's final batch compares both with
        // its run's start (see full-sync.ts).
        updated_at: sql<Date>`now()`,
      })),
    )
    .returning('id')
    .execute();
  // Same transaction: the jobs exist exactly when the document changes commit; one key per document.
  await queue.sendMany(
    indexDocumentSpec,
    rows.map((row) => ({ payload: { documentId: row.id }, key: row.id })),
    { db: trx },
  );
  return changed.length;
}

/**
 * Re-indexes an agent's documents that take the agent's language (those without their own),
 * after that language changed: their chunks are rebuilt with the new text-search configuration.
 */
export async function reindexAgentLanguageDocuments(
  trx: Queryable,
  queue: JobQueue,
  agentId: string,
): Promise<number> {
  const docs = await trx
    .updateTable('documents')
    .set({ index_status: 'pending', indexed_hash: null })
    .where('agent_id', '=', agentId)
    .where('language', 'is', null)
    .returning('id')
    .execute();
  await queue.sendMany(
    indexDocumentSpec,
    docs.map((doc) => ({ payload: { documentId: doc.id }, key: doc.id })),
    { db: trx },
  );
  return docs.length;
}

/** One document a source stores with itself (pasted text, an uploaded file's extracted text). */
export type StoredDocument = {
  externalId: string;
  kind: string;
  title: string;
  text: string;
  metadata: Record<string, unknown>;
};

/** Stores a source's own document (hashed by its text) and queues its indexing when it changed. */
export async function storeSourceDocument(
  trx: Queryable,
  queue: JobQueue,
  source: Pick<SourceRow, 'id' | 'workspace_id' | 'agent_id'>,
  document: StoredDocument,
): Promise<void> {
  const hash = sha256Hex(document.text);
  await upsertDocuments(trx, queue, source, [
    {
      externalId: document.externalId,
      hash,
      toDocument: () => ({ ...document, url: null, language: null, hash, modifiedAt: null }),
    },
  ]);
}
