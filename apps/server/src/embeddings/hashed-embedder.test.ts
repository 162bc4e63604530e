import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createHashedEmbedder, embedText, HASHED_DIMENSIONS, HASHED_YIELD_EVERY } from './hashed-embedder.js';

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}

describe('offline hashed embedder', () => {
  test('is deterministic, unit length and of the declared dimension', async () => {
    const provider = createHashedEmbedder();
    const [a, b] = await provider.embed(['Refunds within thirty days', 'Refunds within thirty days']);
    assert.ok(a && b);
    assert.equal(a.length, HASHED_DIMENSIONS);
    assert.deepEqual(a, b);
    assert.ok(Math.abs(cosine(a, a) - 1) < 1e-4);
    assert.equal(provider.key, `offline-hash-v1:${HASHED_DIMENSIONS}`);
    assert.equal(provider.dimensions, HASHED_DIMENSIONS);
  });

  test('a batch yields to the event loop between small groups, and keeps its order', async () => {
    const provider = createHashedEmbedder();
    // Chunk-sized texts: each group between yields is milliseconds of work, longer than a timer tick.
    const texts = Array.from(
      { length: HASHED_YIELD_EVERY * 4 + 3 },
      (_, index) => `chunk ${index} ${'refunds within thirty days of delivery '.repeat(40)}`,
    );
    let turns = 0;
    const counting = setInterval(() => {
      turns += 1;
    }, 0);
    let vectors: number[][];
    try {
      // A macrotask can only run while the batch is in flight if the batch yields.
      const before = turns;
      vectors = await provider.embed(texts);
      assert.ok(turns - before >= 1, 'no timer ran while the batch was embedded');
    } finally {
      clearInterval(counting);
    }
    assert.equal(vectors.length, texts.length);
    for (const [index, text] of texts.entries()) assert.deepEqual(vectors[index], embedText(text));
  });

  test('a text without words is the zero vector', () => {
    assert.ok(embedText('  ...  !!! ').every((value) => value === 0));
  });

  test('related texts are closer than unrelated ones, typos and accents included', () => {
    const doc = embedText('Our refund policy: send back unworn shoes within thirty days for a full refund.');
    const unrelated = embedText('We ship parcels worldwide with tracked delivery to every zone.');
    for (const query of [
      'refund policy',
      'how do I get a refund',
      'refund polcy',
      'REFUND Pólicy',
      'unworn shoes refunds',
    ]) {
      const q = embedText(query);
      assert.ok(cosine(q, doc) > cosine(q, unrelated) + 0.1, query);
      assert.ok(cosine(q, doc) > createHashedEmbedder().minSimilarity, query);
    }
  });

  test('function words alone do not make texts similar', () => {
    const a = embedText('what is the best way to do this and that');
    const b = embedText('warranty covers manufacturing defects for two years');
    const c = embedText('what is the warranty');
    assert.ok(cosine(c, b) > cosine(c, a), 'the content word decides');
  });

  test('the dimension is configurable and part of the key', async () => {
    const provider = createHashedEmbedder(64);
    const [vector] = await provider.embed(['hello world']);
    assert.equal(vector?.length, 64);
    assert.equal(provider.key, 'offline-hash-v1:64');
  });
});
