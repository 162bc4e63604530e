import { constants, crc32, deflateRawSync, gzipSync } from 'node:zlib';

/**
 * Hostile uploads built in memory at test time, small to send and huge to open: nothing big is
 * committed. Large deflate streams are made by repeating one flushed segment: a raw deflate
 * segment that ends on a sync flush is byte-aligned and not final, and refers back only inside
 * itself, so N copies followed by an empty final block inflate to N times its content.
 */

/** One raw deflate segment of `content`, ended by a sync flush (no final block). */
function flushedSegment(content: Buffer): Buffer {
  return deflateRawSync(content, { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
}

/** The empty final block that closes a stream of flushed segments. */
const FINAL_BLOCK = deflateRawSync(Buffer.alloc(0));

/** A raw deflate stream: `head`, then `body` `times` times, then `tail`; and the size it inflates to. */
function repeatedDeflate(
  head: string,
  body: Buffer,
  times: number,
  tail: string,
): { data: Buffer; size: number } {
  const segment = flushedSegment(body);
  const parts = [
    flushedSegment(Buffer.from(head)),
    ...Array(times).fill(segment),
    flushedSegment(Buffer.from(tail)),
  ];
  return {
    data: Buffer.concat([...parts, FINAL_BLOCK]),
    size: head.length + body.length * times + tail.length,
  };
}

/** An entry of {@link zipOf}: stored bytes, or raw deflate data with the size and CRC it claims. */
type ZipEntry =
  | { name: string; stored: Buffer }
  | { name: string; deflated: Buffer; declaredSize: number; crc: number };

/** A zip archive of the entries, with local headers, a central directory and its end record. */
function zipOf(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const data = 'stored' in entry ? entry.stored : entry.deflated;
    const size = 'stored' in entry ? entry.stored.length : entry.declaredSize;
    const crc = 'stored' in entry ? crc32(entry.stored) : entry.crc;
    const method = 'stored' in entry ? 0 : 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
  '</Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
  '</Relationships>';
const DOCUMENT_HEAD =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const DOCUMENT_TAIL = '</w:body></w:document>';

/** A .docx around `document` (raw deflate of word/document.xml, the size and CRC it claims). */
function docxOf(document: { deflated: Buffer; declaredSize: number; crc: number }): Buffer {
  return zipOf([
    { name: '[Content_Types].xml', stored: Buffer.from(CONTENT_TYPES) },
    { name: '_rels/.rels', stored: Buffer.from(ROOT_RELS) },
    { name: 'word/document.xml', ...document },
  ]);
}

/** CRC-32 of `head`, `body` × `times`, `tail`, without building the whole. */
function repeatedCrc(head: string, body: Buffer, times: number, tail: string): number {
  let crc = crc32(head);
  for (let index = 0; index < times; index += 1) crc = crc32(body, crc);
  return crc32(tail, crc);
}

/**
 * A well-formed .docx (well under 1 MB) whose `word/document.xml` honestly declares and holds
 * `mebibytes` MiB of paragraphs: with the default 199 it is just under the 200 MB unzip cap,
 * so only the converter's appetite can stop it.
 */
export function docxWithHugeDocument(mebibytes = 199): { bytes: Buffer; documentBytes: number } {
  const paragraph = '<w:p><w:r><w:t>Returns are accepted within 30 days.</w:t></w:r></w:p>';
  const chunk = Buffer.from(paragraph.repeat(Math.floor((1024 * 1024) / paragraph.length)));
  const overhead = DOCUMENT_HEAD.length + DOCUMENT_TAIL.length;
  const times = Math.floor((mebibytes * 1024 * 1024 - overhead) / chunk.length);
  const { data, size } = repeatedDeflate(DOCUMENT_HEAD, chunk, times, DOCUMENT_TAIL);
  const crc = repeatedCrc(DOCUMENT_HEAD, chunk, times, DOCUMENT_TAIL);
  return { bytes: docxOf({ deflated: data, declaredSize: size, crc }), documentBytes: size };
}

/**
 * A .docx whose `word/document.xml` declares `declaredSize` bytes but holds one deflate stream
 * of `gibibytes` GiB of zeros (about 1 MB compressed per GiB): the lying-size zip bomb.
 */
export function docxWithLyingDocument(
  gibibytes = 10,
  declaredSize = 1_000,
): { bytes: Buffer; inflatedBytes: number } {
  const zeros = Buffer.alloc(64 * 1024 * 1024);
  const { data, size } = repeatedDeflate(DOCUMENT_HEAD, zeros, gibibytes * 16, DOCUMENT_TAIL);
  return { bytes: docxOf({ deflated: data, declaredSize, crc: 0 }), inflatedBytes: size };
}

/**
 * A one-page PDF whose content stream is a FlateDecode stream inflating to `mebibytes` MiB of
 * text-showing operators (about 1 MB compressed per GiB), with a correct cross-reference table.
 */
export function pdfWithHugeContentStream(mebibytes = 1024): { bytes: Uint8Array; inflatedBytes: number } {
  const operators = 'BT /F1 12 Tf 10 10 Td (Returns are accepted within 30 days.) Tj ET\n';
  const chunk = Buffer.from(operators.repeat(Math.floor((1024 * 1024) / operators.length)));
  const { data, size } = repeatedDeflate('', chunk, mebibytes, '');
  // zlib framing (RFC 1950) around the raw stream, as /FlateDecode expects (pdf.js does not
  // check the Adler-32, and inflating 1 GiB to compute it would cost seconds).
  const zlibStream = Buffer.concat([Buffer.from([0x78, 0xda]), data, Buffer.alloc(4)]);
  const objects = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Count 1 /Kids [3 0 R] >>'),
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    ),
    Buffer.concat([
      Buffer.from(`<< /Length ${zlibStream.length} /Filter /FlateDecode >>\nstream\n`),
      zlibStream,
      Buffer.from('\nendstream'),
    ]),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
  ];
  return { bytes: binaryPdfOf(objects), inflatedBytes: size };
}

/** A PDF of the given objects (numbered from 1, the first the catalog), bytes kept as they are. */
function binaryPdfOf(objects: Buffer[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const piece = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    parts.push(piece);
    length += piece.length;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) tail += `${String(offset).padStart(10, '0')} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  return Buffer.concat([...parts, Buffer.from(tail)]);
}

/** UTF-8 text of exactly `chars` characters in lines of words (ASCII: one byte each). */
export function textOfLength(chars: number): Buffer {
  const line = 'Returns are accepted within 30 days of delivery.\n';
  return Buffer.from(
    line
      .repeat(Math.ceil(chars / line.length))
      .slice(0, chars - 1)
      .concat('.'),
  );
}

/**
 * An HTML page of about `mebibytes` MiB (keep it under the 10 MiB fetch cap) made of small
 * nested elements: cheap to send, about a million DOM nodes to build.
 */
export function htmlWithManyElements(mebibytes = 9): string {
  const element = '<div class="row"><span>Returns</span> <b>30</b> <i>days</i></div>\n';
  const body = element.repeat(Math.floor((mebibytes * 1024 * 1024) / element.length));
  return `<!doctype html><html lang="en"><head><title>Heavy page</title></head><body><main>${body}</main></body></html>`;
}

/** A gzip sitemap whose `urlset` lists `count` URLs under `origin` (about 100 bytes each unpacked). */
export function gzipSitemapOf(origin: string, count: number): Buffer {
  const entry = (index: number) =>
    `<url><loc>${origin}/products/item-${index}</loc><lastmod>2026-01-02</lastmod></url>`;
  const entries = Array.from({ length: count }, (_, index) => entry(index)).join('');
  return gzipSync(
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>`,
  );
}
