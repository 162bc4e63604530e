import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZSearchResult } from '@service/contract';
import { sql } from 'kysely';
import { createHashedEmbedder, type EmbeddingProvider } from '../src/embeddings/index.js';
import { embedChunksJob, queueMissingEmbeddings } from '../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import { searchChunks } from '../src/retrieval/search.js';
import { expectData } from './support/http.js';
import {
  createSite,
  documentsOf,
  hexHash,
  type Site,
  samplePost,
  target,
  UNTHROTTLED,
  wpPost,
} from './support/site-sync.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';

/** Wraps a provider to record every text it is asked to embed. */
function counting(provider: EmbeddingProvider): EmbeddingProvider & { texts: string[] } {
  const texts: string[] = [];
  return {
    key: provider.key,
    dimensions: provider.dimensions,
    maxBatch: 2, // small batches exercise the keyset paging
    semantic: provider.semantic,
    minSimilarity: provider.minSimilarity,
    texts,
    embed(batch, options) {
      texts.push(...batch);
      return provider.embed(batch, options);
    },
  };
}

/**
 * The offline embedder as a model's would be searched: the search leaves out the vectors of a
 * provider that is not `semantic` (a hashing of the words) unless asked, so these tests of the
 * vector retriever mark it semantic.
 */
function asSemantic(provider: EmbeddingProvider): EmbeddingProvider {
  return { ...provider, semantic: true };
}

describe('vector retrieval (pgvector + the offline embedder)', () => {
  let t: TestApp;
  let site: Site;
  let other: Site;
  const log = createLogger('silent');

  const context = (embeddings: EmbeddingProvider | null) => ({
    db: t.database.db,
    clock: t.clock,
    log,
    jobId: 'test',
    attempt: 1,
    queue: t.queue,
    embeddings,
  });

  async function syncAndIndex(s: Site, posts: Record<string, unknown>[], embeddings: EmbeddingProvider) {
    const res = await wpPost(t, 'posts/sync', s.token, { ...target(s.agentId), posts });
    assert.equal(res.statusCode, 200, res.body);
    for (const doc of await documentsOf(t, s.agentId)) {
      await indexDocumentJob.handle({ documentId: doc.id }, context(embeddings));
    }
  }

  async function embeddingRows(agentId: string) {
    return t.database.db
      .selectFrom('embeddings')
      .select(['model', 'dims', 'content_hash'])
      .where('agent_id', '=', agentId)
      .orderBy('content_hash')
      .execute();
  }

  before(async () => {
    t = await createTestApp({ env: UNTHROTTLED });
    if (!t.database.features.vector) return; // every test skips itself
    site = await createSite(t, { language_default: 'en' }, 'Vector shop');
    other = await createSite(t, { language_default: 'en' }, 'Other shop');
  });
  after(() => t.close());

  test('indexing queues one embedding run per agent; the run embeds each distinct chunk text once', async (ctx) => {
    if (!t.database.features.vector) return ctx.skip('pgvector is not available');
    const provider = counting(createHashedEmbedder());
    const paragraphs = [
      'Our refund policy: send back unworn shoes within thirty days for a full refund.',
      'Every trail shoe carries a two-year warranty against manufacturing defects.',
    ];
    await syncAndIndex(
      site,
      [
        samplePost(1, {
          title: 'Returns',
          content_html: `<p>${paragraphs[0]}</p>`,
          content_hash: hexHash('r1'),
        }),
        samplePost(2, {
          title: 'Warranty',
          content_html: `<p>${paragraphs[1]}</p>`,
          content_hash: hexHash('w1'),
        }),
        // The same text as post 1: one vector serves both chunks.
        samplePost(3, {
          title: 'Returns copy',
          content_html: `<p>${paragraphs[0]}</p>`,
          content_hash: hexHash('c1'),
        }),
      ],
      provider,
    );
    const queued = await sql<{ n: string }>`
      select count(*) as n from pgboss.job where name = 'embed-chunks' and singleton_key = ${site.agentId}
        and state = 'created'`.execute(t.database.db);
    assert.equal(Number(queued.rows[0]?.n), 1, 'repeats collapse into one queued run');

    await embedChunksJob.handle({ agentId: site.agentId }, context(provider));
    const rows = await embeddingRows(site.agentId);
    const distinct = await sql<{ n: string }>`
      select count(distinct content_hash) as n from chunks where agent_id = ${site.agentId}`.execute(
      t.database.db,
    );
    assert.equal(rows.length, Number(distinct.rows[0]?.n));
    assert.equal(provider.texts.length, rows.length, 'each distinct text embedded exactly once');
    assert.ok(rows.every((row) => row.model === provider.key && row.dims === 256));

    // Running again embeds nothing: the job is idempotent.
    await embedChunksJob.handle({ agentId: site.agentId }, context(provider));
    assert.equal(provider.texts.length, rows.length);
  });

  test('the vector retriever ranks a paraphrase and reports its rank; other agents never appear', async (ctx) => {
    if (!t.database.features.vector) return ctx.skip('pgvector is not available');
    const provider = createHashedEmbedder();
    await syncAndIndex(
      other,
      [samplePost(1, { title: 'Other', content_html: '<p>Refund policy of another shop: thirty days.</p>' })],
      provider,
    );
    await embedChunksJob.handle({ agentId: other.agentId }, context(provider));

    const hits = await searchChunks({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      query: 'refunds for unworn shoes',
      features: t.database.features,
      embeddings: asSemantic(provider),
    });
    assert.ok(hits.length > 0);
    assert.equal(hits[0]?.title.startsWith('Returns'), true, JSON.stringify(hits));
    assert.ok(hits[0]?.ranks.vector !== undefined, 'found by the vector retriever too');
    const mine = new Set((await documentsOf(t, site.agentId)).map((doc) => doc.id));
    assert.ok(hits.every((hit) => mine.has(hit.document_id)));

    // The HTTP route uses the app's provider: the offline one, whose vectors are not searched
    // by default (full-text ranks the same words); asked for, they are.
    const res = await injectJson(
      t.app,
      'POST',
      `/api/v1/admin/agents/${site.agentId}/search`,
      { query: 'warranty against defects' },
      site.tenant.auth,
    );
    const data = expectData(res, 200, ZSearchResult);
    assert.equal(data.hits[0]?.title, 'Warranty');
    assert.equal(data.hits[0]?.ranks.vector, undefined);
    assert.ok(data.hits[0]?.ranks.fulltext !== undefined);
    const lexical = await searchChunks({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      query: 'refunds for unworn shoes',
      features: t.database.features,
      embeddings: provider,
    });
    assert.ok(
      lexical.every((hit) => hit.ranks.vector === undefined),
      'not semantic: not searched',
    );
    const asked = await searchChunks({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      query: 'refunds for unworn shoes',
      features: t.database.features,
      embeddings: provider,
      components: { lexicalVectors: true },
    });
    assert.ok(
      asked.some((hit) => hit.ranks.vector !== undefined),
      'searched when asked for',
    );
  });

  test('an unrelated query gets no vector hits (the similarity floor)', async (ctx) => {
    if (!t.database.features.vector) return ctx.skip('pgvector is not available');
    const hits = await searchChunks({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      query: 'quantum chromodynamics lattice',
      features: t.database.features,
      embeddings: asSemantic(createHashedEmbedder()),
    });
    assert.deepEqual(hits, []);
  });

  test('a failing embeddings server does not fail the search', async (ctx) => {
    if (!t.database.features.vector) return ctx.skip('pgvector is not available');
    const errors: unknown[] = [];
    const broken: EmbeddingProvider = {
      ...asSemantic(createHashedEmbedder()),
      embed: () => Promise.reject(new Error('connection refused')),
    };
    const hits = await searchChunks({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      query: 'warranty',
      features: t.database.features,
      embeddings: broken,
      onVectorError: (error) => errors.push(error),
    });
    assert.equal(hits[0]?.title, 'Warranty');
    assert.equal(hits[0]?.ranks.vector, undefined);
    assert.equal(errors.length, 1);
  });

  test('re-indexing an edited document embeds only the changed text', async (ctx) => {
    if (!t.database.features.vector) return ctx.skip('pgvector is not available');
    const provider = counting(createHashedEmbedder());
    const kept = 'Every trail shoe carries a two-year warranty against manufacturing defects.';
    const body = (extra: string) => `<h2>Warranty</h2><p>${kept}</p><h2>Claims</h2><p>${extra}</p>`;
    await syncAndIndex(
      site,
      [
        samplePost(2, {
          title: 'Warranty',
          content_html: body('Email us a photo.'),
          content_hash: hexHash('w2'),
        }),
      ],
      provider,
    );
    await embedChunksJob.handle({ agentId: site.agentId }, context(provider));
    const first = provider.texts.length;
    assert.ok(first >= 1);
    await syncAndIndex(
      site,
      [
        samplePost(2, {
          title: 'Warranty',
          content_html: body('Call us instead.'),
          content_hash: hexHash('w3'),
        }),
      ],
      provider,
    );
    await embedChunksJob.handle({ agentId: site.agentId }, context(provider));
    const again = provider.texts.slice(first);
    assert.ok(again.length >= 1);
    assert.ok(
      again.every((text) => text.includes('Call us instead')),
      `only the edited chunk is re-embedded: ${JSON.stringify(again)}`,
    );
    // Vectors no chunk uses any more are dropped.
    const orphans = await sql<{ n: string }>`
      select count(*) as n from embeddings e where e.agent_id = ${site.agentId}
        and not exists (select 1 from chunks c where c.agent_id = e.agent_id and c.content_hash = e.content_hash)`.execute(
      t.database.db,
    );
    assert.equal(Number(orphans.rows[0]?.n), 0);
  });

  test('a provider change (other dimension) re-embeds every agent and drops the old vectors', async (ctx) => {
    if (!t.database.features.vector) return ctx.skip('pgvector is not available');
    const next = createHashedEmbedder(64);
    const agents = await queueMissingEmbeddings(t.database.db, t.queue, next);
    assert.equal(agents, 2, 'both agents with chunks');
    for (const agentId of [site.agentId, other.agentId]) {
      await embedChunksJob.handle({ agentId }, context(next));
      const rows = await embeddingRows(agentId);
      assert.ok(rows.length > 0);
      assert.ok(
        rows.every((row) => row.model === next.key && row.dims === 64),
        JSON.stringify(rows),
      );
    }
    assert.equal(await queueMissingEmbeddings(t.database.db, t.queue, next), 0, 'nothing left to embed');
    const hits = await searchChunks({
      db: t.database.db,
      workspaceId: site.tenant.workspace.id,
      agentId: site.agentId,
      query: 'warranty against manufacturing defects',
      features: t.database.features,
      embeddings: asSemantic(next),
    });
    assert.ok(hits[0]?.ranks.vector !== undefined, 'vectors of the new dimension are searched');
  });
});
