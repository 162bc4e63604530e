import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { chunkText } from './chunk-text.js';

/** A sentence of `words` distinct words (`w<seed>x<i>`), ending with a full stop. */
function sentence(seed: number, words = 12): string {
  const list = Array.from({ length: words }, (_, i) => `w${seed}x${i}`);
  return `${list.join(' ').replace(/^w/, 'W')}.`;
}

function paragraph(seed: number, sentences: number): string {
  return Array.from({ length: sentences }, (_, i) => sentence(seed * 100 + i)).join(' ');
}

/** Every whitespace-separated token of `text`. */
function words(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}

/** A document with headings, short and long paragraphs and one very long sentence. */
const DOCUMENT = [
  '# Shipping',
  paragraph(1, 3),
  paragraph(2, 2),
  'Delivery times',
  paragraph(3, 30),
  paragraph(4, 1),
  '## Returns and refunds',
  Array.from({ length: 400 }, (_, i) => `long${i}`).join(' '),
  paragraph(5, 4),
].join('\n\n');

describe('chunkText', () => {
  test('empty or blank input gives no chunks', () => {
    assert.deepEqual(chunkText(''), []);
    assert.deepEqual(chunkText('   \n\n \t\n'), []);
    assert.deepEqual(chunkText('\r\n\r\n'), []);
  });

  test('a short text is one chunk, trimmed', () => {
    assert.deepEqual(chunkText('  We ship worldwide.  '), ['We ship worldwide.']);
  });

  test('nothing is lost: every word of the input appears in some chunk', () => {
    for (const options of [{}, { maxChars: 300, overlapChars: 40 }, { maxChars: 120, overlapChars: 0 }]) {
      const chunks = chunkText(DOCUMENT, options);
      assert.ok(chunks.length > 1, 'the document is long enough to be split');
      const seen = new Set(chunks.flatMap(words));
      const missing = words(DOCUMENT).filter((word) => !seen.has(word));
      assert.deepEqual(missing, [], `options ${JSON.stringify(options)}`);
    }
  });

  test('without overlap, every chunk respects maxChars and the words keep their order', () => {
    for (const maxChars of [120, 300, 1200]) {
      const chunks = chunkText(DOCUMENT, { maxChars, overlapChars: 0 });
      for (const chunk of chunks) assert.ok(chunk.length <= maxChars, `${chunk.length} > ${maxChars}`);
      assert.deepEqual(chunks.flatMap(words), words(DOCUMENT));
    }
  });

  test('with overlap, a chunk exceeds maxChars by at most the overlap (and its separator)', () => {
    const maxChars = 300;
    const overlapChars = 60;
    const chunks = chunkText(DOCUMENT, { maxChars, overlapChars });
    assert.ok((chunks[0] ?? '').length <= maxChars);
    for (const chunk of chunks.slice(1)) assert.ok(chunk.length <= maxChars + overlapChars + 2);
  });

  test('the defaults are 1200 characters with a 150-character overlap', () => {
    const chunks = chunkText(DOCUMENT);
    const plain = chunkText(DOCUMENT, { maxChars: 1200, overlapChars: 0 });
    for (const chunk of plain) assert.ok(chunk.length <= 1200);
    assert.equal(chunks.length, plain.length);
    for (const chunk of chunks.slice(1)) assert.ok(chunk.length <= 1200 + 150 + 2);
  });

  test('headings (markdown or short title lines) start a new chunk', () => {
    const text = [
      '# Shipping',
      'We ship within two days.',
      'Opening hours',
      'Monday to Friday, nine to five.',
      '## Returns',
      'Send it back within 30 days.',
    ].join('\n\n');
    assert.deepEqual(chunkText(text, { maxChars: 1000, overlapChars: 0 }), [
      '# Shipping\n\nWe ship within two days.',
      'Opening hours\n\nMonday to Friday, nine to five.',
      '## Returns\n\nSend it back within 30 days.',
    ]);
  });

  test('paragraphs of one section are packed together up to maxChars', () => {
    const text = ['First paragraph here.', 'Second paragraph here.', 'Third paragraph here.'].join('\n\n');
    assert.deepEqual(chunkText(text, { maxChars: 1000, overlapChars: 0 }), [text]);
    assert.deepEqual(chunkText(text, { maxChars: 50, overlapChars: 0 }), [
      'First paragraph here.\n\nSecond paragraph here.',
      'Third paragraph here.',
    ]);
  });

  test('a paragraph longer than maxChars is split at sentence ends', () => {
    const sentences = Array.from({ length: 12 }, (_, i) => sentence(i, 10));
    const text = sentences.join(' ');
    const chunks = chunkText(text, { maxChars: 250, overlapChars: 0 });
    assert.ok(chunks.length > 1);
    for (const chunk of chunks) {
      assert.ok(chunk.length <= 250);
      assert.match(chunk, /^W\S+ .*\.$/, 'starts at a sentence start, ends at a sentence end');
    }
    // Each sentence lands whole in exactly one chunk.
    for (const whole of sentences) {
      assert.equal(chunks.filter((chunk) => chunk.includes(whole)).length, 1, whole);
    }
    assert.equal(chunks.join(' '), text);
  });

  test('sentence ends include ! and ? and closing quotes or brackets', () => {
    const text = `${'Is this the first question? '.repeat(3)}Yes! "Quoted end." (Bracketed end.) ${'Plain filler text goes here. '.repeat(3)}`;
    const chunks = chunkText(text.trim(), { maxChars: 90, overlapChars: 0 });
    for (const chunk of chunks) assert.match(chunk, /[.!?]["')\]]*$/);
    assert.deepEqual(chunks.flatMap(words), words(text));
  });

  test('a sentence longer than maxChars is split at spaces, never inside a word', () => {
    const list = Array.from({ length: 200 }, (_, i) => `token${i}`);
    const text = `${list.join(' ')}.`;
    const chunks = chunkText(text, { maxChars: 100, overlapChars: 0 });
    assert.ok(chunks.length >= 10);
    for (const chunk of chunks) assert.ok(chunk.length <= 100);
    assert.deepEqual(chunks.flatMap(words), words(text), 'whole words, in order, none lost');
  });

  test('a word longer than maxChars is cut hard, and still nothing is lost', () => {
    const giant = 'x'.repeat(250);
    const chunks = chunkText(giant, { maxChars: 100, overlapChars: 0 });
    for (const chunk of chunks) assert.ok(chunk.length <= 100);
    assert.equal(chunks.join(''), giant);
  });

  test('each chunk after the first repeats the end of the one before', () => {
    const options = { maxChars: 200, overlapChars: 50 };
    const plain = chunkText(DOCUMENT, { ...options, overlapChars: 0 });
    const chunks = chunkText(DOCUMENT, options);
    assert.equal(chunks.length, plain.length);
    assert.equal(chunks[0], plain[0]);
    for (let i = 1; i < chunks.length; i += 1) {
      const previous = plain[i - 1] ?? '';
      const current = plain[i] ?? '';
      const chunk = chunks[i] ?? '';
      assert.ok(chunk.endsWith(`\n\n${current}`), `chunk ${i} ends with its own text`);
      const overlap = chunk.slice(0, chunk.length - current.length - 2);
      assert.ok(overlap.length > 0 && overlap.length <= 50, `overlap of ${overlap.length}`);
      assert.ok(previous.endsWith(overlap), `chunk ${i} starts with the end of chunk ${i - 1}`);
      // It is the whole previous chunk, or starts at a word boundary in it.
      if (overlap !== previous) assert.match(previous.charAt(previous.length - overlap.length - 1), /\s/);
    }
  });

  test('a previous chunk shorter than the overlap is repeated whole', () => {
    const text = '# Short\n\nTiny.\n\n# Next\n\nMore text follows here.';
    assert.deepEqual(chunkText(text, { maxChars: 1000, overlapChars: 150 }), [
      '# Short\n\nTiny.',
      '# Short\n\nTiny.\n\n# Next\n\nMore text follows here.',
    ]);
  });

  test('CRLF and CR line ends read like LF', () => {
    const lf = '# Shipping\n\nWe ship fast.\nEven on weekends.\n\nOpening hours\n\nNine to five.';
    const crlf = lf.replace(/\n/g, '\r\n');
    const cr = lf.replace(/\n/g, '\r');
    const expected = chunkText(lf, { maxChars: 1000, overlapChars: 0 });
    assert.equal(expected.length, 2);
    assert.deepEqual(chunkText(crlf, { maxChars: 1000, overlapChars: 0 }), expected);
    assert.deepEqual(chunkText(cr, { maxChars: 1000, overlapChars: 0 }), expected);
    for (const chunk of chunkText(crlf)) assert.ok(!chunk.includes('\r'));
  });

  test('blank lines made of spaces still separate paragraphs', () => {
    const text = 'First sentence here.\n   \nSecond sentence here.';
    assert.deepEqual(chunkText(text, { maxChars: 25, overlapChars: 0 }), [
      'First sentence here.',
      'Second sentence here.',
    ]);
  });
});
