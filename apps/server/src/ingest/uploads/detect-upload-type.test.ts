import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import CFB from 'cfb';
import { strToU8, zipSync } from 'fflate';
import { fixture } from '../../../test/support/upload-files.js';
import { detectUploadType, fileNameExtension, type UploadType } from './detect-upload-type.js';

const text = (value: string): Uint8Array => strToU8(value);

/** Asserts a refusal whose reason matches `pattern`. */
async function assertRefused(bytes: Uint8Array, fileName: string, pattern: RegExp): Promise<void> {
  const result = await detectUploadType(bytes, fileName);
  assert.equal(result.ok, false, `${fileName} should be refused`);
  if (!result.ok) assert.match(result.reason, pattern);
}

/** A minimal PE file: `MZ`, e_lfanew at 0x3c pointing to a `PE\0\0` header. */
function windowsExecutable(): Uint8Array {
  const bytes = new Uint8Array(512);
  bytes.set([0x4d, 0x5a]);
  bytes[0x3c] = 0x80;
  bytes.set([0x50, 0x45, 0, 0, 0x4c, 0x01], 0x80);
  return bytes;
}

/** An ELF64 header prefix (x86-64 executable). */
const ELF = new Uint8Array([
  0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0x3e, 0, 1, 0, 0, 0,
]);

/** The PNG signature and an IHDR chunk for a 1×1 image. */
const PNG = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1, 0, 0, 0, 1,
  8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89,
]);

/** A compound file holding only the given root streams. */
function compoundFile(streams: string[]): Uint8Array {
  const container = CFB.utils.cfb_new();
  for (const stream of streams) CFB.utils.cfb_add(container, `/${stream}`, new Uint8Array(4096).fill(1));
  const written: unknown = CFB.write(container, { type: 'buffer' });
  assert.ok(written instanceof Uint8Array);
  return written;
}

describe('detectUploadType: the fixtures', () => {
  const cases: [string, UploadType][] = [
    ['returns-policy.pdf', 'pdf'],
    ['returns-policy.docx', 'docx'],
    ['returns-policy.doc', 'doc'],
    ['returns-policy.odt', 'odt'],
    ['returns-policy.md', 'md'],
    ['returns-policy.txt', 'txt'],
    ['price-list.xlsx', 'xlsx'],
    ['price-list.xls', 'xls'],
    ['price-list.ods', 'ods'],
    ['price-list.csv', 'csv'],
  ];
  for (const [name, type] of cases) {
    test(`${name} is ${type}`, async () => {
      const extension = name.slice(name.lastIndexOf('.') + 1);
      assert.deepEqual(await detectUploadType(await fixture(name), name), { ok: true, type, extension });
    });
  }

  test('the extension is matched case-insensitively and taken from the last path segment', async () => {
    assert.deepEqual(await detectUploadType(await fixture('returns-policy.pdf'), 'C:\\docs.v2\\Policy.PDF'), {
      ok: true,
      type: 'pdf',
      extension: 'pdf',
    });
  });

  test('.markdown is accepted as md, and keeps its extension', async () => {
    assert.deepEqual(await detectUploadType(await fixture('returns-policy.md'), 'notes.markdown'), {
      ok: true,
      type: 'md',
      extension: 'markdown',
    });
  });

  test('a name without an extension takes the type from the bytes (text is txt)', async () => {
    assert.deepEqual(await detectUploadType(text('plain words'), 'README'), {
      ok: true,
      type: 'txt',
      extension: 'txt',
    });
    assert.deepEqual(await detectUploadType(await fixture('price-list.xls'), 'prices'), {
      ok: true,
      type: 'xls',
      extension: 'xls',
    });
  });

  test('text names pick among the text types: csv bytes named .txt are txt', async () => {
    const result = await detectUploadType(await fixture('price-list.csv'), 'prices.txt');
    assert.deepEqual(result, { ok: true, type: 'txt', extension: 'txt' });
  });

  test('a UTF-8 BOM is fine', async () => {
    const result = await detectUploadType(text('\uFEFFsku,name\nA,B\n'), 'list.csv');
    assert.deepEqual(result, { ok: true, type: 'csv', extension: 'csv' });
  });
});

describe('detectUploadType: refusals', () => {
  test('an empty file', async () => {
    await assertRefused(new Uint8Array(0), 'empty.txt', /^the file is empty$/);
  });

  test('HTML renamed .pdf', async () => {
    await assertRefused(
      text('<!DOCTYPE html><html><body>hi</body></html>'),
      'invoice.pdf',
      /content is HTML/,
    );
  });

  test('HTML behind whitespace, a BOM and comments, in any case', async () => {
    const pages = [
      '\uFEFF  \r\n\t<HTML><body>x</body></HTML>',
      '<!-- generated -->\n<!-- twice --> <script>alert(1)</script>',
      '\n\n<iframe src="https://example.com"></iframe>',
      '<p>hello</p>',
      '<!-- only a comment, never closed',
      '  <!doctype HTML>',
    ];
    for (const page of pages)
      await assertRefused(text(page), 'page.txt', /^file content is HTML, which is not accepted$/);
  });

  test('SVG, bare or behind an XML declaration', async () => {
    await assertRefused(
      text('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'),
      'a.md',
      /content is SVG/,
    );
    const declared =
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- x -->\n<svg xmlns="http://www.w3.org/2000/svg"></svg>';
    await assertRefused(text(declared), 'image.txt', /content is SVG/);
    await assertRefused(text('<?xml version="1.0"?><catalog/>'), 'data.csv', /content is XML/);
  });

  test('a plain zip named .docx, and one named .zip', async () => {
    const zip = zipSync({ 'notes.txt': text('hello') });
    await assertRefused(zip, 'report.docx', /zip archives are not accepted/);
    await assertRefused(zip, 'bundle.zip', /zip archives are not accepted/);
  });

  test('executables, whatever their name', async () => {
    await assertRefused(windowsExecutable(), 'setup.pdf', /Windows executable \(exe\)/);
    await assertRefused(
      new Uint8Array([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0]),
      'readme.txt',
      /Windows executable/,
    );
    await assertRefused(ELF, 'notes.txt', /Linux executable \(ELF\)/);
  });

  test('a PNG named .txt', async () => {
    await assertRefused(PNG, 'notes.txt', /content is a PNG image/);
  });

  test('invalid UTF-8 named .txt (Latin-1 bytes, a lone continuation byte)', async () => {
    await assertRefused(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]), 'menu.txt', /nor valid UTF-8 text/);
    await assertRefused(new Uint8Array([0x41, 0x80, 0x42]), 'menu.txt', /nor valid UTF-8 text/);
  });

  test('text with a NUL byte named .txt (UTF-16 looks like this)', async () => {
    await assertRefused(new Uint8Array([0x68, 0, 0x69, 0]), 'notes.txt', /contains NUL bytes/);
  });

  test('a PDF renamed .docx, a docx renamed .pdf, an xls renamed .doc', async () => {
    await assertRefused(
      await fixture('returns-policy.pdf'),
      'policy.docx',
      /content is PDF but it is named \.docx/,
    );
    await assertRefused(
      await fixture('returns-policy.docx'),
      'policy.pdf',
      /content is DOCX but it is named \.pdf/,
    );
    await assertRefused(
      await fixture('price-list.xls'),
      'prices.doc',
      /content is XLS but it is named \.doc/,
    );
    await assertRefused(
      await fixture('returns-policy.pdf'),
      'policy.txt',
      /content is PDF but it is named \.txt/,
    );
  });

  test('a text file named .pdf or .docx', async () => {
    await assertRefused(
      await fixture('returns-policy.txt'),
      'policy.pdf',
      /^the file is text but is named \.pdf$/,
    );
    await assertRefused(text('a,b\n1,2\n'), 'sheet.xlsx', /text but is named \.xlsx/);
  });

  test('an accepted type under a name outside the list', async () => {
    await assertRefused(text('{"a": 1}'), 'data.json', /files named \.json are not accepted/);
    await assertRefused(await fixture('returns-policy.pdf'), 'policy.pdf.exe', /files named \.exe/);
  });

  test('compound files that are neither Word nor Excel', async () => {
    await assertRefused(compoundFile(['PowerPoint Document']), 'deck.doc', /PowerPoint presentation \(ppt\)/);
    await assertRefused(
      compoundFile(['EncryptedPackage', 'EncryptionInfo']),
      'secret.docx',
      /password-protected/,
    );
    await assertRefused(
      compoundFile(['__substg1.0_0037001F']),
      'mail.doc',
      /neither Word \(\.doc\) nor Excel/,
    );
  });

  test('compound files are told apart by their streams', async () => {
    assert.deepEqual(await detectUploadType(compoundFile(['WordDocument', '1Table']), 'a.doc'), {
      ok: true,
      type: 'doc',
      extension: 'doc',
    });
    assert.deepEqual(await detectUploadType(compoundFile(['Book']), 'a.xls'), {
      ok: true,
      type: 'xls',
      extension: 'xls',
    });
  });
});

describe('fileNameExtension', () => {
  test('lower case, last segment, empty when there is none', () => {
    assert.equal(fileNameExtension('A.Tar.GZ'), 'gz');
    assert.equal(fileNameExtension('dir.d/README'), '');
    assert.equal(fileNameExtension(' notes.MD '), 'md');
    assert.equal(fileNameExtension('trailing.'), '');
  });
});
