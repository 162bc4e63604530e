import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sha256Hex } from '../security/hashing.js';
import { formatValue, rowsToDocuments } from './rows-to-documents.js';
import { DEFAULT_MAX_CELL_BYTES } from './run-select.js';

const COLUMNS = ['id', 'name', 'link', 'price', 'updated'];
const ROWS = [
  {
    id: 7,
    name: 'Blue mug',
    link: 'https://shop.example/mug',
    price: '9.50',
    updated: new Date('2026-01-02T03:04:05Z'),
  },
  { id: 8, name: 'Red mug', link: 'javascript:alert(1)', price: null, updated: null },
];

describe('rowsToDocuments', () => {
  test('uses the id, title and url columns and leaves them out of the text', () => {
    const docs = rowsToDocuments(
      { columns: COLUMNS, rows: ROWS },
      { id_column: 'id', title_column: 'name', url_column: 'link' },
    );
    assert.deepEqual(docs, [
      {
        externalId: '7',
        title: 'Blue mug',
        url: 'https://shop.example/mug',
        text: 'price: 9.50\nupdated: 2026-01-02T03:04:05.000Z',
      },
    ]);
  });

  test('a row left with no text is skipped; empty values are left out', () => {
    const docs = rowsToDocuments(
      {
        columns: ['id', 'a', 'b'],
        rows: [
          { id: 1, a: '  ', b: null },
          { id: 2, a: '', b: 'x' },
        ],
      },
      { id_column: 'id' },
    );
    assert.equal(docs.length, 1);
    assert.equal(docs[0]?.text, 'b: x');
    assert.equal(docs[0]?.externalId, '2');
  });

  test('without column options: every column is text, titles are "Row <n>", ids hash the row', () => {
    const docs = rowsToDocuments({ columns: COLUMNS, rows: ROWS });
    assert.equal(docs.length, 2);
    assert.equal(docs[0]?.title, 'Row 1');
    assert.equal(docs[1]?.title, 'Row 2');
    assert.equal(docs[0]?.url, null);
    assert.equal(
      docs[0]?.text,
      'id: 7\nname: Blue mug\nlink: https://shop.example/mug\nprice: 9.50\nupdated: 2026-01-02T03:04:05.000Z',
    );
    assert.match(docs[0]?.externalId ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.notEqual(docs[0]?.externalId, docs[1]?.externalId);
    const expected = JSON.stringify([
      ['id', 7],
      ['name', 'Blue mug'],
      ['link', 'https://shop.example/mug'],
      ['price', '9.50'],
      ['updated', '2026-01-02T03:04:05.000Z'],
    ]);
    assert.equal(docs[0]?.externalId, `sha256:${sha256Hex(expected)}`);
  });

  test('the hashed id is stable: the same row gives the same id, whatever its object key order', () => {
    const first = rowsToDocuments({
      columns: ['a', 'meta'],
      rows: [{ a: 1, meta: { x: 1, y: [2, { b: 1, a: 2 }] } }],
    });
    const second = rowsToDocuments({
      columns: ['a', 'meta'],
      rows: [{ meta: { y: [2, { a: 2, b: 1 }], x: 1 }, a: 1 }],
    });
    assert.equal(first[0]?.externalId, second[0]?.externalId);
    const changed = rowsToDocuments({
      columns: ['a', 'meta'],
      rows: [{ a: 2, meta: { x: 1, y: [2, { b: 1, a: 2 }] } }],
    });
    assert.notEqual(first[0]?.externalId, changed[0]?.externalId);
  });

  test('url only for http(s) URLs', () => {
    const rows = [
      'http://a.example/x',
      'https://b.example/',
      'ftp://c.example/',
      'not a url',
      'javascript:alert(1)',
      42,
      null,
    ].map((link) => ({ link, text: 't' }));
    const urls = rowsToDocuments({ columns: ['link', 'text'], rows }, { url_column: 'link' }).map(
      (doc) => doc.url,
    );
    assert.deepEqual(urls, ['http://a.example/x', 'https://b.example/', null, null, null, null, null]);
  });

  test('a missing or empty title or id column falls back', () => {
    const docs = rowsToDocuments(
      { columns: ['t', 'i', 'body'], rows: [{ t: '', i: null, body: 'hello' }] },
      { title_column: 't', id_column: 'i' },
    );
    assert.equal(docs[0]?.title, 'Row 1');
    assert.match(docs[0]?.externalId ?? '', /^sha256:/);
  });

  test('titles are one line', () => {
    const docs = rowsToDocuments(
      { columns: ['t', 'b'], rows: [{ t: 'Two\nlines\t here', b: 'x' }] },
      { title_column: 't' },
    );
    assert.equal(docs[0]?.title, 'Two lines here');
  });
});

describe('formatValue', () => {
  test('stringifies each kind of cell', () => {
    assert.equal(formatValue('text'), 'text');
    assert.equal(formatValue(0), '0');
    assert.equal(formatValue(false), 'false');
    assert.equal(formatValue(12n), '12');
    assert.equal(formatValue(new Date('2026-05-06T07:08:09.010Z')), '2026-05-06T07:08:09.010Z');
    assert.equal(formatValue({ a: 1, b: [true, null], c: 5n }), '{"a":1,"b":[true,null],"c":"5"}');
    assert.equal(formatValue([1, 'two']), '[1,"two"]');
  });

  test('skips empty, binary and invalid values', () => {
    for (const value of [
      null,
      undefined,
      '',
      '   ',
      Buffer.from('secret'),
      new Uint8Array([1]),
      new Date('nope'),
    ]) {
      assert.equal(formatValue(value), undefined, String(value));
    }
  });

  test('cuts a cell at the byte cap, never mid-character', () => {
    const long = 'é'.repeat(DEFAULT_MAX_CELL_BYTES);
    const text = formatValue(long) ?? '';
    assert.equal(Buffer.byteLength(text), DEFAULT_MAX_CELL_BYTES);
    assert.ok(!text.includes('\uFFFD'));
    const exact = 'a'.repeat(DEFAULT_MAX_CELL_BYTES);
    assert.equal(formatValue(exact), exact);
    assert.equal(formatValue(`${exact}b`), exact);
  });
});
