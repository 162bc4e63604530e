import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { ERROR_CODES, isErrorCode } from '@service/contract';

const DOC = new URL('../../../docs/errors.md', import.meta.url);

type DocRow = { code: string; status: number; when: string };

/** Splits a markdown table row into trimmed cells (no escaped pipes are used in the doc). */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** Reads the one `| Code | Status | When |` table of docs/errors.md. */
function parseCodeTable(markdown: string): DocRow[] {
  const lines = markdown.split('\n');
  const headerIndex = lines.findIndex((line) => /^\|\s*Code\s*\|\s*Status\s*\|\s*When\s*\|\s*$/.test(line));
  assert.notEqual(headerIndex, -1, 'docs/errors.md has no "| Code | Status | When |" table');
  assert.match(lines[headerIndex + 1] ?? '', /^\|(\s*:?-+:?\s*\|){3}\s*$/, 'the table has no separator row');
  const rows: DocRow[] = [];
  for (const line of lines.slice(headerIndex + 2)) {
    if (!line.trim().startsWith('|')) break;
    const [codeCell = '', statusCell = '', when = '', ...rest] = cells(line);
    assert.equal(rest.length, 0, `row has more than three cells: ${line}`);
    const code = /^`([a-z0-9_]+)`$/.exec(codeCell)?.[1];
    assert.ok(code, `code cell is not a single backticked code: ${codeCell}`);
    assert.match(statusCell, /^\d{3}$/, `status of ${code} is not a three-digit number: ${statusCell}`);
    rows.push({ code, status: Number(statusCell), when });
  }
  return rows;
}

const rows = parseCodeTable(await readFile(DOC, 'utf8'));

describe('docs/errors.md', () => {
  test('lists exactly the codes of ERROR_CODES, once each', () => {
    const documented = rows.map((row) => row.code);
    assert.equal(new Set(documented).size, documented.length, `duplicate rows: ${documented.join(', ')}`);
    assert.deepEqual([...documented].sort(), Object.keys(ERROR_CODES).sort());
  });

  test('gives each code the status of ERROR_CODES and says when it happens', () => {
    for (const row of rows) {
      assert.ok(isErrorCode(row.code), `${row.code} is not in ERROR_CODES`);
      assert.equal(row.status, ERROR_CODES[row.code].status, `status of ${row.code}`);
      assert.ok(row.when.length >= 20, `the When cell of ${row.code} is too short to explain anything`);
    }
  });
});
