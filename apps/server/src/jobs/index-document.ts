import { type Kysely, sql } from 'kysely';
import type { Queryable } from '../db/queryable.js';
import type { DB } from '../db/schema.js';
import { chunkText } from '../ingest/chunk-text.js';
import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { INDEX_RETRY_LIMIT, indexDocumentSpec } from '../queue/job-specs.js';
import { textSearchConfig } from '../retrieval/text-search-config.js';
import { recordVocabulary } from '../retrieval/vocabulary.js';
import { sha256Hex } from '../security/hashing.js';
import { newId } from '../security/ids.js';
import { settleSources } from '../services/knowledge/source-run.js';
import { queueEmbedding } from './embed-chunks.js';

/** What the index job uses of its context. */
type IndexContext = JobContextOf<'queue' | 'embeddings'>;

/**
 * Indexes one document: chunks its text and writes the chunks with their full-text vectors,
 * replacing the old ones in one transaction. Idempotent: a document already indexed at its
 * current hash, or one deleted meanwhile, is left alone. After the commit its source is settled
 * (`indexing` → `indexed` once nothing of it is left to index or embed); when the last attempt
 * fails, the document is marked `failed` and its source settled, so it never stays `indexing`.
 */
export const indexDocumentJob = defineJob({
  ...indexDocumentSpec,
  async handle({ documentId }, { db, log, queue, embeddings, attempt }: IndexContext) {
    const embeddingsKey = embeddings?.key ?? null;
    let sourceId: string | undefined;
    try {
      sourceId = await indexDocument(db, documentId, { log, queue, embeddings });
    } catch (error) {
      if (attempt <= INDEX_RETRY_LIMIT) throw error;
      log.error({ err: error, documentId }, 'document could not be indexed; giving up');
      await markIndexFailed(db, documentId, embeddingsKey);
      throw error;
    }
    // Settled after the commit, in a transaction of its own: see settleSources.
    if (sourceId) await settleSources(db, [sourceId], { embeddingsKey });
  },
});

/** Marks a document whose index job gave up `failed` and settles its source. */
export async function markIndexFailed(
  db: Queryable,
  documentId: string,
  embeddingsKey: string | null,
): Promise<void> {
  const doc = await db
    .updateTable('documents')
    .set({ index_status: 'failed' })
    .where('id', '=', documentId)
    .where('index_status', '=', 'pending')
    .returning('source_id')
    .executeTakeFirst();
  if (doc) await settleSources(db, [doc.source_id], { embeddingsKey });
}

/** Chunks and stores one document in one transaction; returns its source id (undefined: deleted). */
async function indexDocument(
  db: Kysely<DB>,
  documentId: string,
  { log, queue, embeddings }: Pick<IndexContext, 'log' | 'queue' | 'embeddings'>,
): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    // A document without a language of its own is in its agent's language, when it has one.
    const doc = await trx
      .selectFrom('documents')
      .innerJoin('agents', 'agents.id', 'documents.agent_id')
      .select([
        'documents.id',
        'documents.workspace_id',
        'documents.agent_id',
        'documents.source_id',
        'documents.language',
        'agents.language_default',
        'documents.content_text',
        'documents.content_hash',
        'documents.indexed_hash',
        'documents.index_status',
      ])
      .where('documents.id', '=', documentId)
      .forUpdate('documents')
      .executeTakeFirst();
    if (!doc) return undefined;
    if (doc.index_status === 'indexed' && doc.indexed_hash === doc.content_hash) return doc.source_id;
    const regconfig = await textSearchConfig(trx, doc.language ?? doc.language_default);
    const pieces = chunkText(doc.content_text);
    await trx.deleteFrom('chunks').where('document_id', '=', doc.id).execute();
    if (pieces.length > 0) {
      await trx
        .insertInto('chunks')
        .values(
          pieces.map((content, ordinal) => ({
            id: newId(),
            workspace_id: doc.workspace_id,
            agent_id: doc.agent_id,
            document_id: doc.id,
            ordinal,
            content,
            content_hash: sha256Hex(content),
            tsv: sql<string>`to_tsvector(${regconfig}::regconfig, ${content})`,
          })),
        )
        .execute();
    }
    await recordVocabulary(trx, doc.agent_id, doc.content_text);
    await trx
      .updateTable('documents')
      .set({ index_status: 'indexed', indexed_hash: doc.content_hash, indexed_at: new Date() })
      .where('id', '=', doc.id)
      .execute();
    // Vectors are computed by a per-agent run outside this transaction (the provider may be remote).
    if (pieces.length > 0) await queueEmbedding(queue, embeddings, doc.agent_id, trx);
    log.debug({ documentId, chunks: pieces.length }, 'document indexed');
    return doc.source_id;
  });
}
