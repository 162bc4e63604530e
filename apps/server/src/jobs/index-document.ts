import { sql } from 'kysely';
import { chunkText } from '../ingest/chunk-text.js';
import { defineJob } from '../queue/job-queue.js';
import { indexDocumentSpec } from '../queue/job-specs.js';
import { textSearchConfig } from '../retrieval/text-search-config.js';
import { recordVocabulary } from '../retrieval/vocabulary.js';
import { sha256Hex } from '../security/hashing.js';
import { newId } from '../security/ids.js';
import { settleSources } from '../services/knowledge/source-run.js';
import { queueEmbedding } from './embed-chunks.js';

/**
 * Indexes one document: chunks its text and writes the chunks with their full-text vectors,
 * replacing the old ones in one transaction. Idempotent: a document already indexed at its
 * current hash, or one deleted meanwhile, is left alone.
 */
export const indexDocumentJob = defineJob({
  ...indexDocumentSpec,
  async handle({ documentId }, { db, log, queue, embeddings }) {
    await db.transaction().execute(async (trx) => {
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
      if (!doc) return;
      if (doc.index_status === 'indexed' && doc.indexed_hash === doc.content_hash) return;
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
      // A source waiting for its documents (a pasted text) is indexed once none is pending.
      await settleSources(trx, [doc.source_id]);
      log.debug({ documentId, chunks: pieces.length }, 'document indexed');
    });
  },
});
