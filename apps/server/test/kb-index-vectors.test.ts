import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { embedChunksJob } from '../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../src/jobs/index-document.js';
import { createLogger } from '../src/logger.js';
import type { JobContext } from '../src/queue/job-queue.js';
import { kbClient, kbDocuments, kbSource } from './support/kb.js';
import { createAgent } from './support/site-sync.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';

/**
 * Removing an article settles the agent's kb source like any other change: with the provider's
 * key, so the source never reads `indexed` while the other articles' chunks wait for vectors.
 */
describe('knowledge base: a removal does not settle a source whose vectors are missing', () => {
  let t: TestApp;
  const { create, patch } = kbClient(() => t);

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('unpublishing one article leaves the source indexing until the others have vectors', async (ctx) => {
    const embeddings = t.embeddings;
    if (!embeddings) return ctx.skip('no vectors on this engine');
    const context: JobContext = {
      db: t.database.db,
      clock: t.clock,
      log: createLogger('silent'),
      jobId: 'test',
      attempt: 1,
      queue: t.queue,
      appKey: t.config.appKey,
      embeddings,
    };
    const acme = await seedTenant(t, 'Acme Help');
    const agentId = await createAgent(t, acme, { name: 'Help bot' });
    await create(acme, {
      title: 'Returns',
      body_markdown: 'Send parcels back within thirty days.',
      is_published: true,
    });
    const gone = await create(acme, {
      title: 'Old promotion',
      body_markdown: 'Free lanterns in March.',
      is_published: true,
    });
    for (const doc of await kbDocuments(t, agentId)) {
      await indexDocumentJob.handle({ documentId: doc.id }, context);
    }
    assert.equal((await kbSource(t, acme, agentId))?.status, 'indexing', 'chunks written, vectors not yet');

    await patch(acme, gone.id, { is_published: false });
    const afterRemoval = await kbSource(t, acme, agentId);
    assert.equal(afterRemoval?.document_count, 1);
    assert.equal(afterRemoval?.status, 'indexing', 'the remaining article still waits for its vectors');

    await embedChunksJob.handle({ agentId }, context);
    const done = await kbSource(t, acme, agentId);
    assert.equal(done?.status, 'indexed');
    assert.equal(done?.error, null);
  });
});
