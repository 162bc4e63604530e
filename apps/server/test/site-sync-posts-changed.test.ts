import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { expectData, expectError, expectValidation } from './support/http.js';
import {
  chunksOf,
  createSite,
  documentsOf,
  hexHash,
  type Json,
  queuedJobs,
  runIndexJob,
  samplePost,
  siteSyncApp,
  snapshot,
  target,
} from './support/site-sync.js';

/** The posts/changed answer: exactly these seven fields. */
const ZChange = z.strictObject({
  action: z.enum(['upsert', 'delete']),
  result: z.enum(['queued', 'skipped_unchanged', 'deleted', 'not_found', 'failed']),
  queued: z.number().int(),
  skipped_unchanged: z.number().int(),
  deleted: z.number().int(),
  failed: z.number().int(),
  failures: z.array(z.strictObject({ wp_id: z.number().int(), reason: z.string() })),
});

describe('site integration: posts/changed', () => {
  const s = siteSyncApp();

  const changed = (agentId: string, action: string, item: Json) => s.changed('posts', agentId, action, item);

  test('upsert via posts:[one] and via a singular post; equal hash skipped', async () => {
    const agentId = await s.freshAgent();
    const jobs = await queuedJobs(s.t);
    const viaList = await changed(agentId, 'upsert', { posts: [samplePost(1)] });
    assert.deepEqual(expectData(viaList, 200, ZChange), {
      action: 'upsert',
      result: 'queued',
      queued: 1,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
    });
    const viaObject = await changed(agentId, 'upsert', { post: samplePost(2) });
    assert.deepEqual(expectData(viaObject, 200, ZChange), {
      action: 'upsert',
      result: 'queued',
      queued: 1,
      skipped_unchanged: 0,
      deleted: 0,
      failed: 0,
      failures: [],
    });
    const again = await changed(agentId, 'upsert', { post: samplePost(2) });
    assert.deepEqual(expectData(again, 200, ZChange), {
      action: 'upsert',
      result: 'skipped_unchanged',
      queued: 0,
      skipped_unchanged: 1,
      deleted: 0,
      failed: 0,
      failures: [],
    });
    const docs = await documentsOf(s.t, agentId);
    assert.deepEqual(
      docs.map((doc) => [doc.external_id, doc.kind, doc.index_status]),
      [
        ['1', 'post', 'pending'],
        ['2', 'post', 'pending'],
      ],
    );
    assert.equal((await queuedJobs(s.t)) - jobs, 2);
  });

  test('both posts and post, or neither, or posts of length 2 or 0 → 422; nothing stored', async () => {
    const agentId = await s.freshAgent();
    const before = await snapshot(s.t);
    const bodies: Json[] = [
      { posts: [samplePost(1)], post: samplePost(1) },
      {},
      { posts: [samplePost(1), samplePost(2)] },
      { posts: [] },
      { posts: samplePost(1) },
    ];
    for (const action of ['upsert', 'delete']) {
      for (const body of bodies) expectValidation(await changed(agentId, action, body), ['posts']);
    }
    assert.deepEqual(await snapshot(s.t), before);
  });

  test('invalid items and actions → 422 naming the field; nothing stored', async () => {
    const agentId = await s.freshAgent();
    const before = await snapshot(s.t);
    const cases: Array<[string, Json, string]> = [
      ['upsert', { posts: [samplePost(1, { permalink: 'nope' })] }, 'posts.0.permalink'],
      ['upsert', { post: samplePost(1, { modified_at: '2026-11-01' }) }, 'post.modified_at'],
      ['upsert', { post: { wp_id: 1 } }, 'post.content_hash'],
      ['delete', { post: { wp_id: '1' } }, 'post.wp_id'],
      ['delete', { posts: [{}] }, 'posts.0.wp_id'],
      ['remove', { post: samplePost(1) }, 'action'],
    ];
    for (const [action, body, field] of cases)
      expectValidation(await changed(agentId, action, body), [field]);
    assert.deepEqual(await snapshot(s.t), before);
  });

  test('delete of a known post removes its document and chunks', async () => {
    const agentId = await s.freshAgent();
    await changed(agentId, 'upsert', { post: samplePost(5) });
    await changed(agentId, 'upsert', { post: samplePost(6) });
    const [doc, keep] = await documentsOf(s.t, agentId);
    assert.ok(doc && keep);
    await runIndexJob(s.t, doc.id);
    await runIndexJob(s.t, keep.id);
    assert.ok((await chunksOf(s.t, doc.id)).length > 0, 'the index job wrote chunks');
    const keptChunks = await chunksOf(s.t, keep.id);

    const jobs = await queuedJobs(s.t);
    // A delete needs only wp_id.
    const res = await changed(agentId, 'delete', { posts: [{ wp_id: 5 }] });
    assert.deepEqual(expectData(res, 200, ZChange), {
      action: 'delete',
      result: 'deleted',
      queued: 0,
      skipped_unchanged: 0,
      deleted: 1,
      failed: 0,
      failures: [],
    });
    assert.deepEqual(
      (await documentsOf(s.t, agentId)).map((row) => row.id),
      [keep.id],
    );
    assert.deepEqual(await chunksOf(s.t, doc.id), []);
    assert.deepEqual(await chunksOf(s.t, keep.id), keptChunks);
    assert.equal(await queuedJobs(s.t), jobs);

    // Deleting it again: 200, not_found.
    const twice = await changed(agentId, 'delete', { post: { wp_id: 5 } });
    assert.equal(expectData(twice, 200, ZChange).result, 'not_found');
  });

  test('delete of an unknown post → 200 not_found, deleted 0; nothing else touched', async () => {
    const agentId = await s.freshAgent();
    await changed(agentId, 'upsert', { post: samplePost(1) });
    const docsBefore = await documentsOf(s.t, agentId);
    const jobs = await queuedJobs(s.t);
    // The full post is accepted too; only wp_id matters.
    for (const item of [{ post: { wp_id: 999 } }, { posts: [samplePost(998)] }]) {
      const res = await changed(agentId, 'delete', item);
      assert.deepEqual(expectData(res, 200, ZChange), {
        action: 'delete',
        result: 'not_found',
        queued: 0,
        skipped_unchanged: 0,
        deleted: 0,
        failed: 0,
        failures: [],
      });
    }
    assert.deepEqual(await documentsOf(s.t, agentId), docsBefore);
    assert.equal(await queuedJobs(s.t), jobs);
  });

  test('a delete only touches this agent’s site: the same wp_id elsewhere stays', async () => {
    const first = await s.freshAgent();
    const second = await s.freshAgent();
    await changed(first, 'upsert', { post: samplePost(1) });
    await changed(second, 'upsert', { post: samplePost(1) });
    const otherSite = await s.post('posts/changed', {
      ...target(first, 'https://blog.example.com'),
      action: 'upsert',
      post: samplePost(1, { content_hash: hexHash('blog') }),
    });
    assert.equal(expectData(otherSite, 200, ZChange).result, 'queued');
    assert.equal(expectData(await changed(first, 'delete', { post: { wp_id: 1 } }), 200, ZChange).deleted, 1);
    const left = await documentsOf(s.t, first);
    assert.deepEqual(
      left.map((doc) => doc.content_hash),
      [hexHash('blog')],
    );
    assert.equal((await documentsOf(s.t, second)).length, 1);
  });

  test('unknown or foreign agent → 404 for upsert and delete; nothing stored', async () => {
    const foreign = await createSite(s.t, {}, 'Foreign');
    const before = await snapshot(s.t);
    for (const agentId of ['01UNKNOWNAGENT00000000000', foreign.agentId]) {
      expectError(await changed(agentId, 'upsert', { post: samplePost(1) }), 404, 'not_found');
      expectError(await changed(agentId, 'delete', { post: { wp_id: 1 } }), 404, 'not_found');
    }
    assert.deepEqual(await snapshot(s.t), before);
  });
});
