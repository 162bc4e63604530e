import mammoth from 'mammoth';
import { extractText, getDocumentProxy, getMeta } from 'unpdf';
import WordExtractor from 'word-extractor';
import type { UploadType } from './detect-upload-type.js';
import { odtContentText } from './odt-content-text.js';
import { repackWithinLimits, unzipWithinLimits } from './unzip-within-limits.js';
import { UploadLimitError } from './upload-limit-error.js';
import { workbookText } from './workbook-text.js';

export { MAX_UNZIPPED_BYTES, MAX_ZIP_ENTRIES } from './unzip-within-limits.js';
export { MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, MAX_SHEETS } from './workbook-text.js';

/** Most PDF pages read; a longer PDF is refused rather than cut short silently. */
export const MAX_PDF_PAGES = 2_000;

/** What an upload reads as: its text and, when the file names one, its title. */
export type ExtractedUpload = { text: string; title?: string };

/** Human names of the types, for error messages. */
const TYPE_NAMES: Readonly<Record<UploadType, string>> = {
  pdf: 'PDF',
  docx: 'Word (.docx)',
  doc: 'Word 97 (.doc)',
  xlsx: 'Excel (.xlsx)',
  xls: 'Excel 97 (.xls)',
  ods: 'OpenDocument spreadsheet (.ods)',
  odt: 'OpenDocument text (.odt)',
  csv: 'CSV',
  md: 'Markdown',
  txt: 'text',
};

/** The same bytes as a Node Buffer, without copying. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** LF line endings, no BOM, no trailing blank lines. */
function normaliseText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .trimEnd();
}

function decodeUtf8(bytes: Uint8Array): string {
  // The detector already proved the bytes are UTF-8; fatal keeps a caller's mistake loud.
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The first level-one ATX heading (`# Title`) of a Markdown document. */
function markdownTitle(text: string): string | undefined {
  const title = /^ {0,3}# +(.+?)(?: +#+)? *$/m.exec(text)?.[1]?.trim();
  return title === undefined || title === '' ? undefined : title;
}

async function extractPdf(bytes: Uint8Array): Promise<ExtractedUpload> {
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy. No eval for
  // fonts (defence in depth after CVE-2024-4367), and no warnings on the console.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, verbosity: 0 });
  try {
    if (pdf.numPages > MAX_PDF_PAGES) {
      throw new UploadLimitError(`the PDF has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are accepted`);
    }
    const { text } = await extractText(pdf, { mergePages: false });
    const pages = text.map((page) => normaliseText(page).trim()).filter((page) => page !== '');
    const { info } = await getMeta(pdf);
    const title: unknown = info.Title;
    const result: ExtractedUpload = { text: pages.join('\n\n') };
    if (typeof title === 'string' && title.trim() !== '') result.title = title.trim();
    return result;
  } finally {
    await pdf.destroy();
  }
}

async function extractDocx(bytes: Uint8Array): Promise<ExtractedUpload> {
  const repacked = repackWithinLimits(bytes);
  const result = await mammoth.extractRawText({ buffer: asBuffer(repacked) });
  return { text: normaliseText(result.value).replace(/\n{3,}/g, '\n\n') };
}

async function extractDoc(bytes: Uint8Array): Promise<ExtractedUpload> {
  const document = await new WordExtractor().extract(asBuffer(bytes));
  return { text: normaliseText(document.getBody()).replace(/\n{3,}/g, '\n\n') };
}

function extractOdt(bytes: Uint8Array): ExtractedUpload {
  const entries = unzipWithinLimits(bytes);
  const content = entries['content.xml'];
  if (content === undefined) throw new Error('content.xml is missing');
  return { text: odtContentText(decodeUtf8(content)) };
}

function extractWorkbook(bytes: Uint8Array, type: 'xlsx' | 'xls' | 'ods'): ExtractedUpload {
  // xls is a compound file, not a zip: SheetJS reads it directly.
  const input = type === 'xls' ? bytes : repackWithinLimits(bytes);
  return { text: workbookText(asBuffer(input)) };
}

function extractPlainText(bytes: Uint8Array, type: 'csv' | 'md' | 'txt'): ExtractedUpload {
  const text = normaliseText(decodeUtf8(bytes));
  if (type !== 'md') return { text };
  const title = markdownTitle(text);
  return title === undefined ? { text } : { text, title };
}

async function extractByType(bytes: Uint8Array, type: UploadType): Promise<ExtractedUpload> {
  switch (type) {
    case 'pdf':
      return extractPdf(bytes);
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
 * Throws an Error with a message for the admin when the file is damaged or over a cap.
 */
export async function extractUploadText(bytes: Uint8Array, type: UploadType): Promise<ExtractedUpload> {
  try {
    return await extractByType(bytes, type);
  } catch (error) {
    const name = TYPE_NAMES[type];
    if (error instanceof UploadLimitError) throw new Error(`the ${name} file is too large: ${error.message}`);
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`the ${name} file could not be read; it may be damaged (${detail})`, { cause: error });
  }
}
