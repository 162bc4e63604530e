import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { strToU8 } from 'fflate';

/** Files the upload tests share: the real fixtures, hand-built PDFs and zips, multipart bodies. */

/** The real office files the upload tests read (`apps/server/test/fixtures/uploads`, see its README). */
const FIXTURES = new URL('../fixtures/uploads/', import.meta.url);

/** The bytes of one file of `apps/server/test/fixtures/uploads`. */
export function fixture(name: string): Promise<Uint8Array> {
  return readFile(new URL(name, FIXTURES));
}

/** A PDF of the given objects (numbered from 1, the first the catalog) with a correct xref table. */
export function pdfOf(objects: readonly string[]): Uint8Array {
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return strToU8(body);
}

/** A one-page PDF whose page draws nothing: valid, but without any text. */
export function pdfWithoutText(): Uint8Array {
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [3 0 R] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Contents 4 0 R /Resources << >> >>',
    '<< /Length 0 >>\nstream\n\nendstream',
  ]);
}

/** Sets the uncompressed size every local and central zip header declares to `size`. */
export function declareUncompressedSize(zip: Uint8Array, size: number): Uint8Array {
  const patched = new Uint8Array(zip);
  const view = new DataView(patched.buffer);
  for (let offset = 0; offset + 46 <= patched.length; offset += 1) {
    const signature = view.getUint32(offset, true);
    if (signature === 0x04034b50) view.setUint32(offset + 22, size, true);
    if (signature === 0x02014b50) view.setUint32(offset + 24, size, true);
  }
  return patched;
}

/** One file part of a hand-built multipart body. */
export type FilePart = { name: string; bytes: Uint8Array | string; contentType?: string; field?: string };

/** A multipart/form-data body with the given file parts (and plain fields), built byte by byte. */
export function multipartBody(
  files: FilePart[],
  fields: Array<{ name: string; value: string }> = [],
): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----upload-test-${randomBytes(8).toString('hex')}`;
  const pieces: Buffer[] = [];
  for (const field of fields) {
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${field.name}"\r\n\r\n${field.value}\r\n`,
      ),
    );
  }
  for (const file of files) {
    pieces.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; ` +
          `filename="${file.name}"\r\nContent-Type: ${file.contentType ?? 'application/octet-stream'}\r\n\r\n`,
      ),
      typeof file.bytes === 'string' ? Buffer.from(file.bytes) : Buffer.from(file.bytes),
      Buffer.from('\r\n'),
    );
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(pieces),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
