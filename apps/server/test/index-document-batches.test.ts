import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSource } from '@service/contract';
import { InsertQueryNode, type KyselyPlugin, sql, ValuesNode } from 'kysely';
import { chunkText } from '../src/ingest/chunk-text.js';
import { EMBEDDING_WRITE_ROWS, embedChunksJob } from '../src/jobs/embed-chunks.js';
import { CHUNK_WRITE_BATCH, writeChunks } from '../src/jobs/index-document/write-chunks.js';
import { indexDocumentJob, MAX_CHUNKS_PER_DOCUMENT } from '../src/jobs/index-document.js';
import type { JobContext } from '../src/queue/job-queue.js';
import { upsertDocuments } from '../src/services/knowledge/documents.js';
import { expectData } from './support/http.js';
import { completeJobs, documentsOfSource, sourceRow } from './support/sources.js';
import {
  createTestApp,
  injectJson,
  seedTenant,
  type Tenant,
  type TestApp,
  workerContext,
} from './support/test-app.js';

/**
 * A text of `sections` titled sections; each title starts a chunk, so it makes that many chunks.
 * `filler` words lengthen each section (8,000 sections with 28 are just under 2,000,000 characters).
 */
function sectionedText(sections: number, filler = 0): string {
  const words = ' parcel'.repeat(filler);
  return Array.from(
    { length: sections },
    (_, i) => `Section ${i + 1}\n\nParcel ${i + 1} leaves the depot on day ${(i % 7) + 1}.${words}`,
  ).join('\n\n');
}

type ChunkStats = { n: number; distinct: number; first: number | null; last: number | null };

describe('index jobs write long documents in batches', () => {
  let t: TestApp;
  let acme: Tenant;
  let agentId: string;

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme');
    agentId = (await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Bot' }, acme.auth)).json()
      .data.id;
  });
  after(() => t.close());

  const context = (overrides: Partial<JobContext> = {}): JobContext =>
    workerContext(t, { embeddings: t.embeddings, ...overrides });

  /** Creates a text source through the API; returns it and its one document's id. */
  const createText = async (text: string, agent = agentId) => {
    const res = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${agent}/sources`,
      { type: 'text', text },
      acme.auth,
    );
    const source = expectData(res, 201, ZSource);
    const [doc] = await documentsOfSource(t, source.id);
    assert.ok(doc);
    return { source, documentId: doc.id };
  };

  const chunkStats = async (documentId: string): Promise<ChunkStats> => {
    const result = await sql<ChunkStats>`
      select count(*)::int as n, count(distinct ordinal)::int as distinct,
        min(ordinal) as first, max(ordinal) as last
      from chunks where document_id = ${documentId}`.execute(t.database.db);
    const row = result.rows[0];
    assert.ok(row);
    return row;
  };

  test('a 2 MB text of more than 7,300 chunks is indexed whole and reaches indexed', async () => {
    const text = sectionedText(8_000, 28);
    assert.ok(text.length > 1_900_000 && text.length <= 2_000_000, `${text.length} characters`);
    const expected = chunkText(text);
    assert.equal(expected.length, 8_000);
    const { source, documentId } = await createText(text);
    await indexDocumentJob.handle({ documentId }, context());
    assert.deepEqual(await chunkStats(documentId), { n: 8_000, distinct: 8_000, first: 0, last: 7_999 });
    const last = await t.database.db
      .selectFrom('chunks')
      .select(['content', sql<boolean>`tsv @@ plainto_tsquery('simple', 'Parcel 8000')`.as('found')])
      .where('document_id', '=', documentId)
      .where('ordinal', '=', 7_999)
      .executeTakeFirstOrThrow();
    assert.equal(last.content, expected[7_999]);
    assert.equal(last.found, true);
    if (t.embeddings) {
      assert.equal((await sourceRow(t, source.id)).status, 'indexing', 'its vectors are not written yet');
      await embedChunksJob.handle({ agentId }, context());
      await completeJobs(t, 'embed-chunks', agentId);
    }
    const done = await sourceRow(t, source.id);
    assert.equal(done.status, 'indexed');
    assert.equal(done.error, null);
  });

  test(`exactly ${MAX_CHUNKS_PER_DOCUMENT} chunks are indexed; one more fails at once with the reason`, async () => {
    const atCap = await createText(sectionedText(MAX_CHUNKS_PER_DOCUMENT));
    // Without a provider the source settles on its full-text index alone.
    await indexDocumentJob.handle({ documentId: atCap.documentId }, context({ embeddings: null }));
    assert.equal((await chunkStats(atCap.documentId)).n, MAX_CHUNKS_PER_DOCUMENT);
    assert.equal((await sourceRow(t, atCap.source.id)).status, 'indexed');

    const over = await createText(sectionedText(MAX_CHUNKS_PER_DOCUMENT + 1));
    await indexDocumentJob.handle({ documentId: over.documentId }, context());
    const [doc] = await documentsOfSource(t, over.source.id);
    assert.equal(doc?.index_status, 'failed');
    assert.equal(doc?.index_error, 'its text makes 20,001 chunks, more than the 20,000 a document may have');
    assert.equal((await chunkStats(over.documentId)).n, 0);
    const failed = await sourceRow(t, over.source.id);
    assert.equal(failed.status, 'failed');
    assert.equal(
      failed.error,
      '1 of 1 documents could not be indexed ("Pasted text": its text makes 20,001 chunks, ' +
        'more than the 20,000 a document may have)',
    );
  });

  test('a batched run that dies midway is started over by its retry: every chunk once', async () => {
    const sections = 6 * CHUNK_WRITE_BATCH;
    const { source, documentId } = await createText(sectionedText(sections));
    const dying = t.database.db.withPlugin(failingChunkInsert(4));
    await assert.rejects(indexDocumentJob.handle({ documentId }, context({ db: dying })), /store went away/);
    assert.equal((await chunkStats(documentId)).n, 3 * CHUNK_WRITE_BATCH, 'three batches were written');
    assert.equal((await documentsOfSource(t, source.id))[0]?.index_status, 'pending');

    await indexDocumentJob.handle({ documentId }, context({ attempt: 2 }));
    assert.deepEqual(await chunkStats(documentId), {
      n: sections,
      distinct: sections,
      first: 0,
      last: sections - 1,
    });
    assert.equal((await documentsOfSource(t, source.id))[0]?.index_status, 'indexed');
  });

  test('a document changed while its batches are written is not marked indexed at the old text', async () => {
    const { source, documentId } = await createText(sectionedText(3 * CHUNK_WRITE_BATCH));
    const newText = sectionedText(2 * CHUNK_WRITE_BATCH + 1);
    const changing = t.database.db.withPlugin(
      afterChunkInsert(1, () =>
        sql`update documents set content_text = ${newText}, content_hash = 'changed'
            where id = ${documentId}`.execute(t.database.db),
      ),
    );
    await indexDocumentJob.handle({ documentId }, context({ db: changing }));
    const [doc] = await documentsOfSource(t, source.id);
    assert.equal(doc?.index_status, 'pending', 'left for the job its change queued');
    assert.equal(doc?.indexed_hash, null);
    assert.equal((await chunkStats(documentId)).n, CHUNK_WRITE_BATCH, 'no batch written after the change');

    await indexDocumentJob.handle({ documentId }, context());
    assert.equal((await chunkStats(documentId)).n, 2 * CHUNK_WRITE_BATCH + 1);
    assert.equal((await documentsOfSource(t, source.id))[0]?.indexed_hash, 'changed');
  });

  test('writeChunks writes nothing for a document at another hash, or one deleted', async () => {
    const { documentId } = await createText('Opening hours\n\nNine to five on weekdays.');
    const doc = await t.database.db
      .selectFrom('documents')
      .select(['id', 'workspace_id', 'agent_id', 'content_hash'])
      .where('id', '=', documentId)
      .executeTakeFirstOrThrow();
    const pieces = ['one piece', 'another piece'];
    const stale = { ...doc, content_hash: 'an older hash' };
    assert.equal(await writeChunks(t.database.db, stale, 'simple', pieces, 0), 0);
    assert.equal((await chunkStats(documentId)).n, 0);
    assert.equal(await writeChunks(t.database.db, doc, 'simple', pieces, 0), 2);
    await t.database.db.deleteFrom('documents').where('id', '=', documentId).execute();
    assert.equal(await writeChunks(t.database.db, doc, 'simple', pieces, 2), 0);
  });

  test('an embedding run writes its vectors a few per statement, each chunk text once', async (ctx) => {
    if (!t.embeddings) return ctx.skip('no vectors on this engine');
    // An agent of its own: the run embeds every chunk of its agent that has no vector yet.
    const agent = (
      await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'Vectors' }, acme.auth)
    ).json().data.id;
    const sections = 5 * EMBEDDING_WRITE_ROWS + 3;
    const { source, documentId } = await createText(sectionedText(sections), agent);
    await indexDocumentJob.handle({ documentId }, context());
    const rows: number[] = [];
    const counting = t.database.db.withPlugin(embeddingInsertRows(rows));
    await embedChunksJob.handle({ agentId: agent }, context({ db: counting }));
    assert.ok(rows.length >= Math.ceil(sections / EMBEDDING_WRITE_ROWS), `${rows.length} inserts`);
    assert.ok(
      rows.every((n) => n >= 1 && n <= EMBEDDING_WRITE_ROWS),
      `rows per insert: ${rows.join(', ')}`,
    );
    const stored = await sql<{ vectors: number; texts: number }>`
      select count(distinct e.content_hash)::int as vectors, count(distinct c.content_hash)::int as texts
      from chunks c left join embeddings e
        on e.agent_id = c.agent_id and e.content_hash = c.content_hash and e.model = ${t.embeddings.key}
      where c.document_id = ${documentId}`.execute(t.database.db);
    const row = stored.rows[0];
    assert.ok(row && row.texts === sections, `${row?.texts} chunk texts`);
    assert.equal(row.vectors, row.texts, 'every chunk text has its vector');
    assert.equal((await sourceRow(t, source.id)).status, 'indexed');
  });

  test('4,700 documents in one upsert (65,800 values) are stored and queued in batches', async () => {
    const source = await sourceRow(t, (await createText('Seed text.')).source.id);
    const items = Array.from({ length: 4_700 }, (_, i) => ({
      externalId: `row-${i}`,
      hash: `hash-${i}`,
      toDocument: () => ({
        externalId: `row-${i}`,
        kind: 'row',
        title: `Row ${i}`,
        url: null,
        language: null,
        text: `Row ${i} of the catalogue.`,
        hash: `hash-${i}`,
        metadata: {},
        modifiedAt: null,
      }),
    }));
    const queue = t.queue;
    assert.ok(queue);
    const first = await t.database.db
      .transaction()
      .execute((trx) => upsertDocuments(trx, queue, source, items));
    assert.deepEqual(first, { queued: 4_700, skipped_unchanged: 0 });
    const stored = await sql<{ n: number }>`
      select count(*)::int as n from documents where source_id = ${source.id} and external_id like 'row-%'
        and index_status = 'pending'`.execute(t.database.db);
    assert.equal(stored.rows[0]?.n, 4_700);
    const jobs = await sql<{ n: number }>`
      select count(*)::int as n from pgboss.job j join documents d on d.id = j.singleton_key
      where j.name = 'index-document' and d.source_id = ${source.id} and d.external_id like 'row-%'`.execute(
      t.database.db,
    );
    assert.equal(jobs.rows[0]?.n, 4_700);
    const again = await t.database.db
      .transaction()
      .execute((trx) => upsertDocuments(trx, queue, source, items));
    assert.deepEqual(again, { queued: 0, skipped_unchanged: 4_700 });
  });
});

/** Whether a query is a chunk insert (writeChunks' statement). */
function isChunkInsert(node: unknown): boolean {
  const fragments: unknown =
    typeof node === 'object' && node !== null ? Reflect.get(node, 'sqlFragments') : null;
  return Array.isArray(fragments) && fragments.some((part) => String(part).includes('insert into chunks'));
}

/** A plugin under which the `n`th chunk insert fails, as if the store went away mid-document. */
function failingChunkInsert(n: number): KyselyPlugin {
  let seen = 0;
  return {
    transformQuery({ node }) {
      if (isChunkInsert(node)) {
        seen += 1;
        if (seen === n) throw new Error('store went away');
      }
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
}

/**
 * A plugin that runs `effect` once, after the `n`th chunk insert has committed and before the
 * next statement, and waits for it (it runs on another connection of the pool, on PostgreSQL
 * and on the embedded store alike).
 */
function afterChunkInsert(n: number, effect: () => Promise<unknown>): KyselyPlugin {
  let seen = 0;
  const inserts = new WeakSet<object>();
  return {
    transformQuery({ node, queryId }) {
      if (isChunkInsert(node)) inserts.add(queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (inserts.has(queryId)) {
        seen += 1;
        if (seen === n) await effect();
      }
      return result;
    },
  };
}

/** A plugin that records how many rows each insert into `embeddings` writes. */
function embeddingInsertRows(rows: number[]): KyselyPlugin {
  return {
    transformQuery({ node }) {
      if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'embeddings') {
        const values = node.values;
        rows.push(values !== undefined && ValuesNode.is(values) ? values.values.length : -1);
      }
      return node;
    },
    async transformResult({ result }) {
      return result;
    },
  };
}
