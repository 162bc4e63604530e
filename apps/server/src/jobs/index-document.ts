import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import type { DB } from '../db/schema.js';
import { chunkText } from '../ingest/chunk-text.js';
import { recordVocabulary } from '../retrieval/vocabulary.js';
import { sha256Hex } from '../security/hashing.js';
import { newId } from '../security/ids.js';
import type { Queryable } from '../services/context.js';
import { queueEmbedding } from './embed-chunks.js';
import { defineJob, type JobContext } from './queue.js';
import { settleSources } from './source-run.js';

/** Postgres text-search configurations by language code; anything else uses `simple`. */
const TS_CONFIGS: Record<string, string> = {
  ar: 'arabic',
  da: 'danish',
  de: 'german',
  el: 'greek',
  en: 'english',
  es: 'spanish',
  fi: 'finnish',
  fr: 'french',
  hu: 'hungarian',
  id: 'indonesian',
  it: 'italian',
  nb: 'norwegian',
  nl: 'dutch',
  nn: 'norwegian',
  no: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sv: 'swedish',
  tr: 'turkish',
};

/**
 * The configurations each database has, keyed by its Kysely adapter: one object per Kysely
 * instance, shared by its transactions and plugins, so a job's `trx` and the search's `db`
 * share one entry and two databases in one process never share one. Only a successful read
 * is kept: a failed one (a database restarting) is forgotten, and the next call asks again.
 */
const installedConfigs = new WeakMap<object, Promise<Set<string>>>();

function readInstalledConfigs(db: Queryable): Promise<Set<string>> {
  const key = db.getExecutor().adapter;
  const cached = installedConfigs.get(key);
  if (cached !== undefined) return cached;
  const read = sql<{ cfgname: string }>`select cfgname from pg_ts_config`
    .execute(db)
    .then((result) => new Set(result.rows.map((row) => row.cfgname)));
  installedConfigs.set(key, read);
  read.catch(() => {
    // Forget the failure unless a later call already replaced it.
    if (installedConfigs.get(key) === read) installedConfigs.delete(key);
  });
  return read;
}

/** The text-search configuration for a document language, if this database has it. */
export async function textSearchConfig(db: Queryable, language: string | null): Promise<string> {
  const wanted = language ? TS_CONFIGS[language.split('-')[0] ?? ''] : undefined;
  if (!wanted) return 'simple';
  return (await readInstalledConfigs(db)).has(wanted) ? wanted : 'simple';
}

/** Attempts an index job gets beyond the first (its last attempt marks the document failed). */
const INDEX_RETRY_LIMIT = 5;

/**
 * Indexes one document: chunks its text and writes the chunks with their full-text vectors,
 * replacing the old ones in one transaction. Idempotent: a document already indexed at its
 * current hash, or one deleted meanwhile, is left alone. After the commit its source is settled
 * (`indexing` → `indexed` once nothing of it is left to index or embed); when the last attempt
 * fails, the document is marked `failed` and its source settled, so it never stays `indexing`.
 */
export const indexDocumentJob = defineJob({
  name: 'index-document',
  payload: z.object({ documentId: z.string().min(1) }),
  policy: 'stately',
  retryLimit: INDEX_RETRY_LIMIT,
  async handle({ documentId }, { db, log, queue, embeddings, attempt }) {
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
  { log, queue, embeddings }: Pick<JobContext, 'log' | 'queue' | 'embeddings'>,
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
    if (pieces.length > 0 && queue) await queueEmbedding(queue, embeddings, doc.agent_id, trx);
    log.debug({ documentId, chunks: pieces.length }, 'document indexed');
    return doc.source_id;
  });
}
