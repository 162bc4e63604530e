import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { utils, write } from '@e965/xlsx';
import {
  MAX_SHEET_COLUMNS,
  MAX_SHEET_ROWS,
  MAX_SHEETS,
  readWorkbook,
  workbookText,
} from './workbook-text.js';

/** An xlsx workbook holding the given sheets (arrays of rows). */
function workbook(sheets: Record<string, unknown[][]>): Uint8Array {
  const book = utils.book_new();
  for (const [name, rows] of Object.entries(sheets))
    utils.book_append_sheet(book, utils.aoa_to_sheet(rows), name);
  const bytes: unknown = write(book, { type: 'buffer', bookType: 'xlsx' });
  assert.ok(bytes instanceof Uint8Array);
  return bytes;
}

describe('workbookText', () => {
  test('one heading per sheet; empty rows, trailing empty cells and empty sheets are skipped', () => {
    const text = workbookText(
      workbook({
        Prices: [['sku', 'price'], [], ['A-1', 9.5, null]],
        Empty: [],
        Notes: [['  two\n lines ']],
      }),
    );
    assert.equal(text, 'Sheet: Prices\nsku | price\nA-1 | 9.5\n\nSheet: Notes\ntwo lines');
  });

  test('counts the sheets read (an empty one too) and their non-empty rows', () => {
    const read = readWorkbook(
      workbook({ Prices: [['sku'], [], ['A-1'], ['B-2']], Empty: [], Notes: [['x']] }),
    );
    assert.deepEqual({ sheets: read.sheets, rows: read.rows }, { sheets: 3, rows: 4 });
  });

  test(`${MAX_SHEETS} sheets are read, the ${MAX_SHEETS + 1}st is not`, () => {
    const sheets = Object.fromEntries(
      Array.from({ length: MAX_SHEETS + 1 }, (_, i) => [`S${i + 1}`, [[`cell ${i + 1}`]]]),
    );
    const text = workbookText(workbook(sheets));
    assert.ok(text.includes(`Sheet: S${MAX_SHEETS}\ncell ${MAX_SHEETS}`));
    assert.ok(!text.includes(`S${MAX_SHEETS + 1}`));
  });

  test(`${MAX_SHEET_ROWS} rows are read, row ${MAX_SHEET_ROWS + 1} is not`, () => {
    const rows = Array.from({ length: MAX_SHEET_ROWS + 1 }, (_, i) => [`r${i + 1}`]);
    const read = readWorkbook(workbook({ Big: rows }));
    const lines = read.text.split('\n');
    assert.equal(lines.length, MAX_SHEET_ROWS + 1);
    assert.equal(read.rows, MAX_SHEET_ROWS);
    assert.equal(lines.at(-1), `r${MAX_SHEET_ROWS}`);
  });

  test(`${MAX_SHEET_COLUMNS} columns are read, column ${MAX_SHEET_COLUMNS + 1} is not`, () => {
    const row = Array.from({ length: MAX_SHEET_COLUMNS + 1 }, (_, i) => `c${i + 1}`);
    const cells = workbookText(workbook({ Wide: [row] }))
      .split('\n')[1]
      ?.split(' | ');
    assert.equal(cells?.length, MAX_SHEET_COLUMNS);
    assert.equal(cells?.at(-1), `c${MAX_SHEET_COLUMNS}`);
  });
});
