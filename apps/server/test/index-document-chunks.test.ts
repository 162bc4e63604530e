import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../src/security/ids.js';
import { indexDocumentApp, longEnglish } from './support/index-document.js';
import { TEST_ENGINE } from './support/test-database.js';

// The index-document job's chunks: ordered, idempotent, replaced on a change, none for no text.
const f = indexDocumentApp();
const { insertDocument, runIndex, chunksOf, matches, documentState } = f;

describe(`index-document job: chunks (${TEST_ENGINE})`, () => {
  test('a long document becomes several ordered chunks, each findable', async () => {
    const text = longEnglish('delivery', 60);
    const id = await insertDocument({ language: 'en', text, hash: 'dddd0001' });
    await runIndex(id);
    const chunks = await chunksOf(id);
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`);
    assert.deepEqual(
      chunks.map((chunk) => chunk.ordinal),
      chunks.map((_, i) => i),
    );
    assert.ok(chunks.every((chunk) => chunk.content.length <= 1200 + 150 + 2));
    assert.equal(await matches(id, 'english', 'deliveries'), chunks.length);
    // Every sentence of the text is in some chunk.
    for (let i = 0; i < 60; i += 1) {
      assert.ok(
        chunks.some((chunk) => chunk.content.includes(`Sentence ${i} about`)),
        `sentence ${i}`,
      );
    }
  });

  test('running again is idempotent: the same chunks, no duplicates', async () => {
    const id = await insertDocument({ language: 'en', text: longEnglish('refunds', 40), hash: 'eeee0001' });
    await runIndex(id);
    const first = await chunksOf(id);
    const firstState = await documentState(id);
    assert.ok(first.length >= 2);

    // Already indexed at this hash: a repeat leaves everything as it was.
    await runIndex(id);
    assert.deepEqual(await chunksOf(id), first);
    assert.deepEqual(await documentState(id), firstState);

    // Even when forced (status back to pending, same text), the chunks come out the same, once.
    await f.t.database.db
      .updateTable('documents')
      .set({ index_status: 'pending' })
      .where('id', '=', id)
      .execute();
    await runIndex(id);
    await runIndex(id);
    const again = await chunksOf(id);
    assert.deepEqual(
      again.map(({ ordinal, content, tsv }) => ({ ordinal, content, tsv })),
      first.map(({ ordinal, content, tsv }) => ({ ordinal, content, tsv })),
    );
    assert.equal((await documentState(id)).index_status, 'indexed');
  });

  test('a content change re-chunks and replaces the old chunks', async () => {
    const id = await insertDocument({ language: 'en', text: longEnglish('shipping', 40), hash: 'ffff0001' });
    await runIndex(id);
    const old = await chunksOf(id);
    assert.ok(old.length >= 2);
    assert.equal(await matches(id, 'english', 'shipping'), old.length);

    // What a sync does for a changed post: new text and hash, back to pending.
    await f.t.database.db
      .updateTable('documents')
      .set({
        content_text: 'Warranty\n\nEvery kettle carries a two year warranty.',
        content_hash: 'ffff0002',
        index_status: 'pending',
      })
      .where('id', '=', id)
      .execute();
    await runIndex(id);
    const fresh = await chunksOf(id);
    assert.equal(fresh.length, 1);
    assert.equal(fresh[0]?.content, 'Warranty\n\nEvery kettle carries a two year warranty.');
    const oldIds = new Set(old.map((chunk) => chunk.id));
    assert.ok(
      fresh.every((chunk) => !oldIds.has(chunk.id)),
      'old chunk rows are gone',
    );
    assert.equal(await matches(id, 'english', 'shipping'), 0);
    assert.equal(await matches(id, 'english', 'warranties'), 1);
    const state = await documentState(id);
    assert.equal(state.index_status, 'indexed');
    assert.equal(state.indexed_hash, 'ffff0002');
  });

  test('a change of hash alone (still marked indexed) is re-indexed too', async () => {
    const id = await insertDocument({ language: 'en', text: 'Old text about parcels.', hash: 'abab0001' });
    await runIndex(id);
    await f.t.database.db
      .updateTable('documents')
      .set({ content_text: 'New text about couriers.', content_hash: 'abab0002' })
      .where('id', '=', id)
      .execute();
    await runIndex(id);
    assert.deepEqual(
      (await chunksOf(id)).map((chunk) => chunk.content),
      ['New text about couriers.'],
    );
    assert.equal((await documentState(id)).indexed_hash, 'abab0002');
  });

  test('a document with no text is indexed with no chunks', async () => {
    const id = await insertDocument({ language: 'en', text: '', hash: 'acac0001' });
    await runIndex(id);
    assert.deepEqual(await chunksOf(id), []);
    assert.equal((await documentState(id)).index_status, 'indexed');
  });

  test('a deleted (or never existing) document is a no-op', async () => {
    const id = await insertDocument({ language: 'en', text: 'Soon gone.', hash: 'adad0001' });
    await runIndex(id);
    assert.equal((await chunksOf(id)).length, 1);
    await f.t.database.db.deleteFrom('documents').where('id', '=', id).execute();
    // Its chunks went with it (cascade); the job for it finishes without error or effect.
    assert.deepEqual(await chunksOf(id), []);
    const before = await f.t.database.db.selectFrom('chunks').select('id').execute();
    await runIndex(id);
    await runIndex(newId());
    assert.deepEqual(await chunksOf(id), []);
    const afterRows = await f.t.database.db.selectFrom('chunks').select('id').execute();
    assert.deepEqual(afterRows.map((row) => row.id).sort(), before.map((row) => row.id).sort());
  });
});
