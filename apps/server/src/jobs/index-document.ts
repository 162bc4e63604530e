import { type Kysely, sql } from 'kysely';
import type { Queryable } from '../db/queryable.js';
import type { DB } from '../db/schema.js';
import { chunkText } from '../ingest/chunk-text.js';
import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { INDEX_RETRY_LIMIT, indexDocumentSpec } from '../queue/job-specs.js';
import { textSearchConfig } from '../retrieval/text-search-config.js';
import { titleVector } from '../retrieval/title-vector.js';
import { recordVocabulary } from '../retrieval/vocabulary.js';
import { settleSources } from '../services/knowledge/source-run.js';
import { EMBED_GATHER_SECONDS, queueEmbedding } from './embed-chunks.js';
import { CHUNK_WRITE_BATCH, type ChunkTarget, writeChunks } from './index-document/write-chunks.js';

/**
 * Most chunks one document is indexed into. A longer one (about 20 MB of prose, or far fewer
 * characters cut into many short sections) is failed with the reason in its source's `error`,
 * rather than filling the index and the embedding queue with one document.
 */
export const MAX_CHUNKS_PER_DOCUMENT = 20_000;

/** What the index job uses of its context. */
type IndexContext = JobContextOf<'queue' | 'embeddings' | 'clock'>;

/**
 * Indexes one document: chunks its text and writes the chunks with their full-text vectors,
 * replacing the old ones. Up to CHUNK_WRITE_BATCH chunks that is one transaction; a longer
 * document is written a batch per transaction (so the store serves other queries in between),
 * and its new chunks appear as they are written. Idempotent: a document already indexed at its
 * current hash, or one deleted meanwhile, is left alone. After the commit its source is settled
 * (`indexing` → `indexed` once nothing of it is left to index or embed). A document of more than
 * MAX_CHUNKS_PER_DOCUMENT chunks is failed at once with the reason; when the last attempt fails
 * (or the job fails for good otherwise, see `giveUp`), the document is marked `failed` and its
 * source settled, so it never stays `indexing`.
 */
export const indexDocumentJob = defineJob({
  ...indexDocumentSpec,
  async handle({ documentId }, { db, log, queue, embeddings, clock, attempt }: IndexContext) {
    const embeddingsKey = embeddings?.key ?? null;
    let sourceId: string | undefined;
    try {
      sourceId = await indexDocument(db, documentId, { log, queue, embeddings, clock });
    } catch (error) {
      if (attempt <= INDEX_RETRY_LIMIT) throw error;
      log.error({ err: error, documentId }, 'document could not be indexed; giving up');
      await markIndexFailed(db, documentId, embeddingsKey);
      throw error;
    }
    // Settled after the commit, in a transaction of its own: see settleSources.
    if (sourceId) await settleSources(db, [sourceId], { embeddingsKey, evaluations: { queue, clock } });
  },
  async giveUp({ documentId }, { db, embeddings }, reason) {
    return markIndexFailed(db, documentId, embeddings?.key ?? null, `the index job ${reason}`);
  },
});

/**
 * Marks a pending document whose index job gave up `failed`, with the reason when it is known
 * (shown in its source's `error`), and settles its source. Returns whether it was pending.
 */
export async function markIndexFailed(
  db: Queryable,
  documentId: string,
  embeddingsKey: string | null,
  reason: string | null = null,
): Promise<boolean> {
  const doc = await db
    .updateTable('documents')
    .set({ index_status: 'failed', index_error: reason })
    .where('id', '=', documentId)
    .where('index_status', '=', 'pending')
    .returning('source_id')
    .executeTakeFirst();
  if (doc) await settleSources(db, [doc.source_id], { embeddingsKey });
  return doc !== undefined;
}

type Prepared =
  | { kind: 'done'; sourceId: string | undefined }
  | { kind: 'batches'; target: IndexTarget; regconfig: string; pieces: string[] };

/** The document being indexed: where its chunks go, its source, and its text. */
type IndexTarget = ChunkTarget & { source_id: string; content_text: string };

/** Chunks and stores one document; returns its source id (undefined: deleted). */
async function indexDocument(
  db: Kysely<DB>,
  documentId: string,
  context: Pick<IndexContext, 'log' | 'queue' | 'embeddings' | 'clock'>,
): Promise<string | undefined> {
  const prepared = await db.transaction().execute(async (trx): Promise<Prepared> => {
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
    if (!doc) return { kind: 'done', sourceId: undefined };
    if (doc.index_status === 'indexed' && doc.indexed_hash === doc.content_hash)
      return { kind: 'done', sourceId: doc.source_id };
    const pieces = chunkText(doc.content_text);
    if (pieces.length > MAX_CHUNKS_PER_DOCUMENT) {
      // Its earlier chunks, if any, stay: like any failed index, the last indexed version is kept.
      const reason =
        `its text makes ${pieces.length.toLocaleString('en')} chunks, more than the ` +
        `${MAX_CHUNKS_PER_DOCUMENT.toLocaleString('en')} a document may have`;
      await trx
        .updateTable('documents')
        .set({ index_status: 'failed', index_error: reason })
        .where('id', '=', doc.id)
        .execute();
      context.log.warn({ documentId, chunks: pieces.length }, 'document has too many chunks; not indexed');
      return { kind: 'done', sourceId: doc.source_id };
    }
    const regconfig = await textSearchConfig(trx, doc.language ?? doc.language_default);
    await trx.deleteFrom('chunks').where('document_id', '=', doc.id).execute();
    if (pieces.length > CHUNK_WRITE_BATCH) return { kind: 'batches', target: doc, regconfig, pieces };
    await writeChunks(trx, doc, regconfig, pieces, 0);
    await finishDocument(trx, doc, regconfig, pieces.length, context);
    return { kind: 'done', sourceId: doc.source_id };
  });
  if (prepared.kind === 'done') return prepared.sourceId;
  return writeInBatches(db, prepared, context);
}

/**
 * Writes a long document's chunks a batch per statement, then marks it indexed, unless it was
 * changed or deleted meanwhile: then its next index job (queued with the change) starts over.
 */
async function writeInBatches(
  db: Kysely<DB>,
  { target, regconfig, pieces }: Extract<Prepared, { kind: 'batches' }>,
  context: Pick<IndexContext, 'log' | 'queue' | 'embeddings' | 'clock'>,
): Promise<string | undefined> {
  context.log.info({ documentId: target.id, chunks: pieces.length }, 'indexing a long document in batches');
  for (let start = 0; start < pieces.length; start += CHUNK_WRITE_BATCH) {
    const batch = pieces.slice(start, start + CHUNK_WRITE_BATCH);
    const written = await writeChunks(db, target, regconfig, batch, start);
    if (written !== batch.length) return target.source_id;
  }
  await db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('documents')
      .select('content_hash')
      .where('id', '=', target.id)
      .forUpdate()
      .executeTakeFirst();
    if (current?.content_hash !== target.content_hash) return;
    await finishDocument(trx, target, regconfig, pieces.length, context);
  });
  return target.source_id;
}

/**
 * Records the document's words, marks it indexed at the hash its chunks were cut from, and
 * queues its agent's embedding run, in the caller's transaction.
 */
async function finishDocument(
  trx: Queryable,
  doc: IndexTarget,
  regconfig: string,
  chunks: number,
  { log, queue, embeddings, clock }: Pick<IndexContext, 'log' | 'queue' | 'embeddings' | 'clock'>,
): Promise<void> {
  await recordVocabulary(trx, doc.agent_id, doc.content_text);
  await trx
    .updateTable('documents')
    .set({
      index_status: 'indexed',
      index_error: null,
      indexed_hash: doc.content_hash,
      indexed_at: clock.now(),
      title_tsv: titleVector(regconfig, sql`title`, sql`url`),
    })
    .where('id', '=', doc.id)
    .execute();
  // Vectors are computed by a per-agent run outside this transaction (the provider may be remote).
  if (chunks > 0 && queue) await queueEmbedding(queue, embeddings, doc.agent_id, trx, EMBED_GATHER_SECONDS);
  log.debug({ documentId: doc.id, chunks }, 'document indexed');
}
