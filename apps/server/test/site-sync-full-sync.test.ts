import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ZSyncResult } from '@service/contract';
import { sql } from 'kysely';
import { expectData, expectValidation } from './support/http.js';
import {
  chunksOf,
  documentsOf,
  type Json,
  range,
  runIndexJob,
  samplePost,
  sampleProduct,
  siteSyncApp,
  snapshot,
  target,
} from './support/site-sync.js';

describe('site integration: full sync runs remove what they did not list', () => {
  const s = siteSyncApp();

  const { freshAgent } = s;
  const fullSyncOf = (fullSync?: Json) => (fullSync ? { full_sync: fullSync } : {});
  const postsSync = (agentId: string, posts: unknown[], fullSync?: Json) =>
    s.sync('posts', agentId, posts, fullSyncOf(fullSync));
  const productsSync = (agentId: string, products: unknown[], fullSync?: Json) =>
    s.sync('products', agentId, products, fullSyncOf(fullSync));
  const counts = (res: Awaited<ReturnType<typeof postsSync>>) => expectData(res, 200, ZSyncResult);
  const ids = async (agentId: string, kind = 'post') =>
    (await documentsOf(s.t, agentId))
      .filter((doc) => doc.kind === kind)
      .map((doc) => Number(doc.external_id))
      .sort((a, b) => a - b);
  const posts = (from: number, count: number) => range(from, count).map((id) => samplePost(id));

  test('a run in batches removes the posts no batch listed, with their chunks, and counts them', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 50)));
    counts(await postsSync(agentId, posts(51, 20)));
    const gone = (await documentsOf(s.t, agentId)).find((doc) => doc.external_id === '60');
    assert.ok(gone);
    await runIndexJob(s.t, gone.id);
    assert.ok((await chunksOf(s.t, gone.id)).length > 0);

    // The site now has posts 1–55 and 61–70: 56–60 were removed while no delta was sent.
    const first = counts(await postsSync(agentId, posts(1, 50), { id: 'run-a', final: false }));
    assert.deepEqual(first, { queued: 0, skipped_unchanged: 50, deleted: 0, failed: 0, failures: [] });
    assert.equal((await ids(agentId)).length, 70, 'nothing is removed before the final batch');
    const last = counts(
      await postsSync(agentId, [...posts(51, 5), ...posts(61, 10)], { id: 'run-a', final: true }),
    );
    assert.deepEqual(last, { queued: 0, skipped_unchanged: 15, deleted: 5, failed: 0, failures: [] });
    assert.deepEqual(await ids(agentId), [...range(1, 55), ...range(61, 10)]);
    assert.equal((await chunksOf(s.t, gone.id)).length, 0, 'the removed post left no chunks');

    // The final batch sent again (its answer was lost) removes nothing more, whatever it lists.
    const again = counts(await postsSync(agentId, posts(61, 10), { id: 'run-a', final: true }));
    assert.equal(again.deleted, 0);
    assert.equal((await ids(agentId)).length, 65);
    // A day later the id is forgotten: sent again, it opens a new run that owes nothing to the old one.
    await sql`update full_sync_runs set last_batch_at = now() - interval '25 hours' where run_id = 'run-a'`.execute(
      s.t.database.db,
    );
    const reused = counts(await postsSync(agentId, posts(61, 10), { id: 'run-a', final: true }));
    assert.equal(reused.deleted, 55);
    assert.deepEqual(await ids(agentId), range(61, 10));
  });

  test('a final batch without earlier batches keeps only its own items; an empty final keeps none', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 10)));
    assert.equal(counts(await postsSync(agentId, posts(3, 2), { id: 'solo', final: true })).deleted, 8);
    assert.deepEqual(await ids(agentId), [3, 4]);
    assert.deepEqual(counts(await postsSync(agentId, [], { id: 'empty', final: true })), {
      queued: 0,
      skipped_unchanged: 0,
      deleted: 2,
      failed: 0,
      failures: [],
    });
    assert.deepEqual(await ids(agentId), []);
  });

  test('a run that never sends its final batch deletes nothing; plain syncs never delete', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 10)));
    assert.equal(counts(await postsSync(agentId, posts(1, 3), { id: 'open', final: false })).deleted, 0);
    assert.equal(counts(await postsSync(agentId, posts(1, 3))).deleted, 0);
    assert.equal((await ids(agentId)).length, 10);
  });

  test('a post a delta creates or changes during the run stays; a post only listed before the run goes', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 5)));
    await sql`update documents set created_at = now() - interval '1 minute', updated_at = now() - interval '1 minute'
      where agent_id = ${agentId}`.execute(s.t.database.db);
    counts(await postsSync(agentId, posts(1, 2), { id: 'with-deltas', final: false }));
    const created = await s.post('posts/changed', {
      ...target(agentId),
      action: 'upsert',
      post: samplePost(99),
    });
    assert.equal(created.statusCode, 200);
    const changed = await s.post('posts/changed', {
      ...target(agentId),
      action: 'upsert',
      post: samplePost(4, { title: 'Post 4, edited', content_hash: 'ab'.repeat(32) }),
    });
    assert.equal(changed.statusCode, 200);
    const last = counts(await postsSync(agentId, [], { id: 'with-deltas', final: true }));
    assert.equal(last.deleted, 2, 'posts 3 and 5');
    assert.deepEqual(await ids(agentId), [1, 2, 4, 99]);
  });

  test('two runs at once: the older final keeps what the newer listed, and the reverse', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 6)));
    await sql`update documents set created_at = now() - interval '1 minute', updated_at = now() - interval '1 minute'
      where agent_id = ${agentId}`.execute(s.t.database.db);
    counts(await postsSync(agentId, posts(1, 3), { id: 'old', final: false }));
    counts(await postsSync(agentId, posts(1, 4), { id: 'new', final: false }));
    // A late batch of the old run lists 5, after the new run started.
    counts(await postsSync(agentId, posts(5, 1), { id: 'old', final: false }));
    assert.equal(counts(await postsSync(agentId, [], { id: 'old', final: true })).deleted, 1, 'only 6');
    assert.equal(counts(await postsSync(agentId, [], { id: 'new', final: true })).deleted, 0);
    assert.deepEqual(await ids(agentId), [1, 2, 3, 4, 5]);
  });

  test('post_types limits the final removal to those types', async () => {
    const agentId = await freshAgent();
    counts(
      await postsSync(agentId, [
        samplePost(1, { post_type: 'page' }),
        samplePost(2, { post_type: 'page' }),
        samplePost(3, { post_type: 'post' }),
      ]),
    );
    const last = counts(
      await postsSync(agentId, [samplePost(1, { post_type: 'page' })], {
        id: 'pages',
        final: true,
        post_types: ['page'],
      }),
    );
    assert.equal(last.deleted, 1);
    assert.deepEqual(await ids(agentId), [1, 3]);
  });

  test('products: a full run removes the products it did not list, and leaves posts alone', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 2)));
    counts(
      await productsSync(
        agentId,
        range(1, 4).map((id) => sampleProduct(id)),
      ),
    );
    const last = counts(
      await productsSync(agentId, [sampleProduct(2), sampleProduct(4)], { id: 'shop', final: true }),
    );
    assert.deepEqual(last, { queued: 0, skipped_unchanged: 2, deleted: 2, failed: 0, failures: [] });
    assert.deepEqual(await ids(agentId, 'product'), [2, 4]);
    assert.deepEqual(await ids(agentId, 'post'), [1, 2]);
  });

  test('a run idle for over a day is forgotten; resuming it keeps what its earlier batches listed', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 6)));
    await sql`update documents set created_at = now() - interval '3 days', updated_at = now() - interval '3 days'
      where agent_id = ${agentId}`.execute(s.t.database.db);
    counts(await postsSync(agentId, posts(1, 2), { id: 'slow', final: false }));
    await sql`update full_sync_runs set started_at = now() - interval '2 days', last_batch_at = now() - interval '2 days'
      where run_id = 'slow'`.execute(s.t.database.db);
    await sql`update documents set full_sync_listed_at = now() - interval '2 days' where agent_id = ${agentId}
      and full_sync_listed_at is not null`.execute(s.t.database.db);
    assert.equal(counts(await postsSync(agentId, posts(3, 2), { id: 'slow', final: true })).deleted, 2);
    assert.deepEqual(await ids(agentId), [1, 2, 3, 4]);
  });

  test('stored runs are capped at 20 per source: the least recently active is forgotten', async () => {
    const agentId = await freshAgent();
    for (const n of range(1, 21))
      counts(await postsSync(agentId, posts(1, 1), { id: `r${n}`, final: false }));
    const runs = await s.t.database.db.selectFrom('full_sync_runs').select('run_id').execute();
    const mine = runs.map((row) => row.run_id).filter((id) => /^r\d+$/.test(id));
    assert.equal(mine.length, 20);
    assert.ok(!mine.includes('r1'));
  });

  test('bad full_sync fields, 51 posts, or an empty list outside a final batch → 422, nothing changes', async () => {
    const agentId = await freshAgent();
    counts(await postsSync(agentId, posts(1, 3)));
    // The edges that pass: 50 posts in a run's batch, a run id of 100 characters.
    assert.equal(counts(await postsSync(agentId, posts(1, 50), { id: 'edge', final: false })).deleted, 0);
    assert.equal(
      counts(await postsSync(agentId, posts(1, 1), { id: 'a'.repeat(100), final: false })).deleted,
      0,
    );
    const before = await snapshot(s.t);
    const runsBefore = await s.t.database.db
      .selectFrom('full_sync_runs')
      .selectAll()
      .orderBy('run_id')
      .execute();
    expectValidation(await postsSync(agentId, posts(1, 51), { id: 'big', final: true }), ['posts']);
    expectValidation(await postsSync(agentId, [], { id: 'x', final: false }), ['posts']);
    expectValidation(await postsSync(agentId, [], { id: 'x' }), ['posts']);
    expectValidation(await postsSync(agentId, []), ['posts']);
    expectValidation(await postsSync(agentId, [], { id: '', final: true }), ['full_sync.id']);
    expectValidation(await postsSync(agentId, [], { id: 'a'.repeat(101), final: true }), ['full_sync.id']);
    expectValidation(await postsSync(agentId, [], { id: 'bad id', final: true }), ['full_sync.id']);
    expectValidation(await postsSync(agentId, [], { id: 'bad\u0000id', final: true }), ['full_sync.id']);
    expectValidation(await postsSync(agentId, [], { final: true }), ['full_sync.id']);
    expectValidation(await postsSync(agentId, [], { id: 'ok', final: 'yes' }), ['full_sync.final']);
    expectValidation(await postsSync(agentId, [], { id: 'ok', final: true, extra: 1 }), ['full_sync.extra']);
    expectValidation(await postsSync(agentId, [], { id: 'ok', final: true, post_types: [] }), [
      'full_sync.post_types',
    ]);
    expectValidation(await productsSync(agentId, [], { id: 'ok', final: true, post_types: ['x'] }), [
      'full_sync.post_types',
    ]);
    assert.deepEqual(await snapshot(s.t), before);
    assert.deepEqual(
      await s.t.database.db.selectFrom('full_sync_runs').selectAll().orderBy('run_id').execute(),
      runsBefore,
    );
  });
});
