import mammoth from 'mammoth';
import { getDocumentProxy, getMeta } from 'unpdf';
import WordExtractor from 'word-extractor';
import type { UploadType } from './detect-upload-type.js';
import {
  countParagraphs,
  decodeUtf8,
  type ExtractedUpload,
  extractPlainText,
  normaliseText,
} from './extract-plain-text.js';
import { joinOdtParagraphs, odtParagraphs } from './odt-content-text.js';
import { repackWithinLimits, unzipWithinLimits } from './unzip-within-limits.js';
import { UploadLimitError } from './upload-limit-error.js';
import { checkTextLength, extractWithinRules, MAX_TEXT_CHARS } from './upload-text-rules.js';
import { readWorkbook } from './workbook-text.js';

export type { ExtractedUpload, UploadExtent } from './extract-plain-text.js';
export { MAX_UNZIPPED_BYTES, MAX_ZIP_ENTRIES } from './unzip-within-limits.js';
export { MAX_TEXT_CHARS, UPLOAD_TYPE_NAMES } from './upload-text-rules.js';
export { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, MAX_SHEETS } from './workbook-text.js';

/** Most PDF pages read; a longer PDF is refused rather than cut short silently. */
export const MAX_PDF_PAGES = 2_000;

/** Options of {@link extractUploadText}. */
export type ExtractOptions = { maxTextChars?: number };

/** The same bytes as a Node Buffer, without copying. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A document pdf.js opened. */
type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

/**
 * One page's text as pdf.js lays it out: its items in order, a newline where an item ends a
 * line. Items are read as pdf.js streams them, and reading stops once the page holds more than
 * `budget` characters: a content stream that inflates to gigabytes of text is given up after a
 * few megabytes of it.
 */
async function pageText(pdf: PdfDocument, pageNumber: number, budget: number): Promise<string> {
  const page = await pdf.getPage(pageNumber);
  const reader = page.streamTextContent().getReader();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      for (const item of textItems(value)) text += item.hasEOL ? `${item.str}\n` : item.str;
      if (text.length > budget) return text;
    }
  } finally {
    // pdf.js wants a reason, and its text task waits on the stream until it is cancelled: without
    // this, destroying the document would wait forever for a page left half read.
    await reader.cancel(new Error('enough text was read')).catch(() => undefined);
    page.cleanup();
  }
}

/** The text items of one streamed chunk of pdf.js text content (`{items: [{str, hasEOL}, …]}`). */
function textItems(chunk: unknown): Array<{ str: string; hasEOL: boolean }> {
  const items: unknown =
    typeof chunk === 'object' && chunk !== null ? Reflect.get(chunk, 'items') : undefined;
  if (!Array.isArray(items)) return [];
  const result: Array<{ str: string; hasEOL: boolean }> = [];
  for (const item of items) {
    const str: unknown = typeof item === 'object' && item !== null ? Reflect.get(item, 'str') : undefined;
    // Marked-content items have no `str`; they carry no text.
    if (typeof str === 'string') result.push({ str, hasEOL: Reflect.get(item, 'hasEOL') === true });
  }
  return result;
}

async function extractPdf(bytes: Uint8Array, maxTextChars: number): Promise<ExtractedUpload> {
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy. No eval for
  // fonts (defence in depth after CVE-2024-4367), and no warnings on the console.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0 });
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new UploadLimitError(`the PDF has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are accepted`);
    }
    // Page by page, not all at once, so memory holds one page's content and a PDF past the
    // text cap stops at the page that crosses it.
    const pages: string[] = [];
    let length = 0;
    for (let pageNumber = 1; pageNumber <= pdf.numPages; pageNumber += 1) {
      const text = normaliseText(await pageText(pdf, pageNumber, maxTextChars - length)).trim();
      if (text === '') continue;
      length += text.length + (pages.length > 0 ? 2 : 0);
      checkTextLength(length, maxTextChars);
      pages.push(text);
    }
    const { info } = await getMeta(pdf);
    const title: unknown = info.Title;
    // Every page was read, those without text too.
    const result: ExtractedUpload = { text: pages.join('\n\n'), extent: { pages: pdf.numPages } };
    if (typeof title === 'string' && title.trim() !== '') result.title = title.trim();
    return result;
  } finally {
    await pdf.destroy();
  }
}

async function extractDocx(bytes: Uint8Array): Promise<ExtractedUpload> {
  const repacked = repackWithinLimits(bytes);
  const result = await mammoth.extractRawText({ buffer: asBuffer(repacked) });
  // mammoth ends each paragraph with a blank line; a line break inside one is a single newline.
  const text = normaliseText(result.value).replace(/\n{3,}/g, '\n\n');
  return { text, extent: { paragraphs: countParagraphs(text) } };
}

async function extractDoc(bytes: Uint8Array): Promise<ExtractedUpload> {
  const document = await new WordExtractor().extract(asBuffer(bytes));
  const body = normaliseText(document.getBody());
  // word-extractor ends each paragraph with one newline: a paragraph is a non-empty line.
  const paragraphs = body.split('\n').filter((line) => line.trim() !== '').length;
  return { text: body.replace(/\n{3,}/g, '\n\n'), extent: { paragraphs } };
}

function extractOdt(bytes: Uint8Array): ExtractedUpload {
  const entries = unzipWithinLimits(bytes);
  const content = entries['content.xml'];
  if (content === undefined) throw new Error('content.xml is missing');
  const paragraphs = odtParagraphs(decodeUtf8(content));
  const text = joinOdtParagraphs(paragraphs);
  return { text, extent: { paragraphs: paragraphs.filter((line) => line !== '').length } };
}

function extractWorkbook(bytes: Uint8Array, type: 'xlsx' | 'xls' | 'ods'): ExtractedUpload {
  // xls is a compound file, not a zip: SheetJS reads it directly.
  const input = type === 'xls' ? bytes : repackWithinLimits(bytes);
  const { text, sheets, rows } = readWorkbook(asBuffer(input));
  return { text, extent: { sheets, rows } };
}

async function extractByType(
  bytes: Uint8Array,
  type: UploadType,
  maxTextChars: number,
): Promise<ExtractedUpload> {
  switch (type) {
    case 'pdf':
      return extractPdf(bytes, maxTextChars);
    case 'docx':
      return extractDocx(bytes);
    case 'doc':
      return extractDoc(bytes);
    case 'odt':
      return extractOdt(bytes);
    case 'xlsx':
    case 'xls':
    case 'ods':
      return extractWorkbook(bytes, type);
    case 'csv':
    case 'md':
    case 'txt':
      return extractPlainText(bytes, type);
  }
}

/**
 * Extracts the readable text of an upload whose type {@link detectUploadType} decided, offline.
 * Throws an Error with a message for the admin when the file is damaged or over a cap (pages,
 * archive size, or `maxTextChars` of text, default {@link MAX_TEXT_CHARS}). Runs the parsers on
 * the calling thread: the service calls it inside a bounded worker (extraction/), which also
 * caps the heap and the time.
 */
export async function extractUploadText(
  bytes: Uint8Array,
  type: UploadType,
  options: ExtractOptions = {},
): Promise<ExtractedUpload> {
  const maxTextChars = options.maxTextChars ?? MAX_TEXT_CHARS;
  return extractWithinRules(type, maxTextChars, () => extractByType(bytes, type, maxTextChars));
}
