import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { declareUncompressedSize, fixture, pdfOf } from '../../../test/support/upload-files.js';
import { detectUploadType } from './detect-upload-type.js';
import { extractUploadText, MAX_PDF_PAGES, MAX_TEXT_CHARS } from './extract-upload-text.js';

/** Detects a fixture's type from its bytes and extracts it, as the ingest path does. */
async function extractFixture(name: string): Promise<{ text: string; title?: string }> {
  const bytes = await fixture(name);
  const detected = await detectUploadType(bytes, name);
  assert.ok(detected.ok, `${name} is accepted`);
  return extractUploadText(bytes, detected.type);
}

/**
 * A valid PDF of `pages` pages that all draw "Page text" (one shared content stream), with
 * a correct cross-reference table.
 */
function buildPdf(pages: number): Uint8Array {
  const content = 'BT /F1 12 Tf 10 10 Td (Page text) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Count ${pages} /Kids [${Array.from({ length: pages }, (_, i) => `${i + 5} 0 R`).join(' ')}] >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    ...Array.from(
      { length: pages },
      () =>
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Contents 4 0 R /Resources << /Font << /F1 3 0 R >> >> >>',
    ),
  ];
  return pdfOf(objects);
}

describe('extractUploadText: the fixtures', () => {
  const policies = [
    'returns-policy.pdf',
    'returns-policy.docx',
    'returns-policy.doc',
    'returns-policy.odt',
    'returns-policy.md',
    'returns-policy.txt',
  ];
  for (const name of policies) {
    test(`${name} says 30 days, 5 to 7 business days, Rotterdam`, async () => {
      const { text } = await extractFixture(name);
      assert.match(text, /within (\*\*)?30 days/);
      assert.match(text, /5 to 7 business days/);
      assert.match(text, /warehouse in Rotterdam/);
      assert.ok(!text.includes('\r'), 'line endings are LF');
    });
  }

  for (const name of ['price-list.xlsx', 'price-list.xls', 'price-list.ods']) {
    test(`${name} lists the four products, one row per line under a sheet heading`, async () => {
      const { text } = await extractFixture(name);
      const lines = text.split('\n');
      assert.equal(lines[0], 'Sheet: price-list');
      assert.equal(lines[1], 'sku | name | price_eur | stock');
      // The sheets store 89.00 as the number 89 in the General format.
      assert.ok(lines.includes('HD-014 | Merino hoodie | 89 | 35'), text);
      assert.ok(lines.includes('TSH-001 | Organic cotton T-shirt | 24.9 | 120'), text);
      assert.ok(lines.includes('JKT-777 | Waterproof trail jacket | 149 | 12'), text);
      assert.equal(lines.length, 6);
    });
  }

  test('price-list.csv is returned as written', async () => {
    const { text } = await extractFixture('price-list.csv');
    assert.ok(text.startsWith('sku,name,price_eur,stock\n'));
    assert.ok(text.includes('HD-014,Merino hoodie,89.00,35'));
  });

  test('the PDF title comes from its metadata; pages are joined by a blank line', async () => {
    assert.equal((await extractFixture('returns-policy.pdf')).title, 'Returns policy');
    const { text, extent } = await extractUploadText(buildPdf(3), 'pdf');
    assert.equal(text, 'Page text\n\nPage text\n\nPage text');
    assert.deepEqual(extent, { pages: 3 });
  });

  test('the Markdown title is its first level-one heading; plain text has none', async () => {
    assert.equal((await extractFixture('returns-policy.md')).title, 'Returns policy');
    assert.equal((await extractFixture('returns-policy.txt')).title, undefined);
  });

  test('text: the BOM is stripped and CRLF / CR become LF', async () => {
    const { text } = await extractUploadText(strToU8('\uFEFFa,b\r\n1,2\r3,4\r\n'), 'csv');
    assert.equal(text, 'a,b\n1,2\n3,4');
  });
});

describe('extractUploadText: damaged or oversized files', () => {
  test('a corrupt PDF', async () => {
    const bytes = strToU8('%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\ngarbage');
    await assert.rejects(
      extractUploadText(bytes, 'pdf'),
      /^Error: the PDF file could not be read; it may be damaged/,
    );
  });

  test('a truncated PDF', async () => {
    const bytes = (await fixture('returns-policy.pdf')).slice(0, 2000);
    await assert.rejects(extractUploadText(bytes, 'pdf'), /the PDF file could not be read/);
  });

  test(`a PDF of ${MAX_PDF_PAGES} pages is read; one of ${MAX_PDF_PAGES + 1} is refused`, async () => {
    const { text } = await extractUploadText(buildPdf(MAX_PDF_PAGES), 'pdf');
    assert.equal(text.split('\n\n').length, MAX_PDF_PAGES);
    await assert.rejects(
      extractUploadText(buildPdf(MAX_PDF_PAGES + 1), 'pdf'),
      new RegExp(`the PDF file is too large: the PDF has ${MAX_PDF_PAGES + 1} pages`),
    );
  });

  test('a corrupt docx: truncated, or a zip without word/document.xml', async () => {
    const truncated = (await fixture('returns-policy.docx')).slice(0, 3000);
    await assert.rejects(
      extractUploadText(truncated, 'docx'),
      /^Error: the Word \(\.docx\) file could not be read/,
    );
    const empty = zipSync({ '[Content_Types].xml': strToU8('<Types/>') });
    await assert.rejects(extractUploadText(empty, 'docx'), /the Word \(\.docx\) file could not be read/);
  });

  test('a corrupt doc, xls and odt', async () => {
    const doc = (await fixture('returns-policy.doc')).slice(0, 1024);
    await assert.rejects(extractUploadText(doc, 'doc'), /the Word 97 \(\.doc\) file could not be read/);
    const xls = (await fixture('price-list.xls')).slice(0, 1024);
    await assert.rejects(extractUploadText(xls, 'xls'), /the Excel 97 \(\.xls\) file could not be read/);
    const odt = zipSync({ mimetype: strToU8('application/vnd.oasis.opendocument.text') });
    await assert.rejects(
      extractUploadText(odt, 'odt'),
      /OpenDocument text \(\.odt\) file could not be read.*content\.xml/,
    );
  });

  test('text that is not UTF-8 after all', async () => {
    await assert.rejects(
      extractUploadText(new Uint8Array([0xff, 0xfe, 0x41]), 'txt'),
      /the text file could not be read/,
    );
  });

  test(`text of ${MAX_TEXT_CHARS} characters is read; one more is refused`, async () => {
    const { text } = await extractUploadText(strToU8('a'.repeat(MAX_TEXT_CHARS)), 'txt');
    assert.equal(text.length, MAX_TEXT_CHARS);
    await assert.rejects(
      extractUploadText(strToU8('a'.repeat(MAX_TEXT_CHARS + 1)), 'txt'),
      /^Error: the text file is too large: its text is longer than 2,000,000 characters/,
    );
  });

  test('a PDF stops at the page whose text crosses the cap', async () => {
    // Three pages of "Page text" (9 characters) joined by blank lines: 9 + 2 + 9 + 2 + 9 = 31.
    assert.equal((await extractUploadText(buildPdf(3), 'pdf', { maxTextChars: 31 })).text.length, 31);
    await assert.rejects(
      extractUploadText(buildPdf(3), 'pdf', { maxTextChars: 30 }),
      /the PDF file is too large: its text is longer than 30 characters/,
    );
  });

  test('archives declaring more than 200 MB are refused before anything is inflated', async () => {
    const content = strToU8('<office:document-content><office:body/></office:document-content>');
    const bomb = declareUncompressedSize(zipSync({ 'content.xml': content }), 200 * 1024 * 1024 + 1);
    for (const type of ['odt', 'ods', 'docx', 'xlsx'] as const) {
      await assert.rejects(
        extractUploadText(bomb, type),
        /file is too large: the archive expands to more than 200 MB/,
      );
    }
  });
});
