/**
 * How much of a file was read, in the units natural to its type: pages (PDF), sheets and rows
 * (spreadsheets), rows (CSV), paragraphs (Word, OpenDocument text, Markdown, plain text).
 */
export type UploadExtent = { pages?: number; sheets?: number; rows?: number; paragraphs?: number };

/** What an upload reads as: its text, how much was read and, when the file names one, its title. */
export type ExtractedUpload = { text: string; extent: UploadExtent; title?: string };

/** Longest line looked at for a Markdown title; a heading is never longer in practice. */
const MAX_TITLE_LINE_CHARS = 1_000;

/** LF line endings, no BOM, no trailing blank lines. */
export function normaliseText(text: string): string {
  return text
    .replace(/^\uFEFF/, '')
    .replace(/\r\n?/g, '\n')
    .trimEnd();
}

/** The bytes as UTF-8 text; throws on invalid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  // The detector already proved the bytes are UTF-8; fatal keeps a caller's mistake loud.
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/**
 * The first level-one ATX heading (`# Title`, closing `#`s dropped) of a Markdown document. A
 * line scan rather than one multiline regex: `(.+?)(?: +#+)? *$` backtracks quadratically on a
 * heading followed by a long run of spaces (40,000 spaces took 5.7 s on the event loop).
 */
export function markdownTitle(text: string): string | undefined {
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    if (end - start <= MAX_TITLE_LINE_CHARS) {
      const title = headingText(text.slice(start, end));
      if (title !== undefined) return title;
    }
    start = end + 1;
  }
  return undefined;
}

/** The text of a level-one ATX heading line (CommonMark 4.2), or undefined for any other line. */
function headingText(line: string): string | undefined {
  const open = /^ {0,3}# +/.exec(line);
  if (open === null) return undefined;
  let body = line.slice(open[0].length).trimEnd();
  // A closing sequence of #s counts only after a space (`# C#` keeps its #).
  let hashes = body.length;
  while (hashes > 0 && body[hashes - 1] === '#') hashes -= 1;
  if (hashes < body.length && (hashes === 0 || body[hashes - 1] === ' ')) body = body.slice(0, hashes);
  const title = body.trim();
  return title === '' ? undefined : title;
}

/** Blocks of text separated by blank lines (a line of only whitespace counts as blank). */
export function countParagraphs(text: string): number {
  return text.split(/\n[ \t]*\n/).filter((block) => block.trim() !== '').length;
}

/**
 * Records of a CSV text (RFC 4180): a line break inside double quotes does not end a record;
 * blank lines are not records. One pass, linear in the text.
 */
export function countCsvRows(text: string): number {
  let rows = 0;
  let inQuotes = false;
  let hasContent = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (char === '"') {
      // A doubled quote inside quotes is an escaped quote: toggling twice keeps the state.
      inQuotes = !inQuotes;
      hasContent = true;
    } else if (char === '\n' && !inQuotes) {
      if (hasContent) rows += 1;
      hasContent = false;
    } else if (char !== ' ' && char !== '\t') {
      hasContent = true;
    }
  }
  return hasContent ? rows + 1 : rows;
}

/** A csv, Markdown or plain-text upload: UTF-8, normalised; Markdown's title from its first heading. */
export function extractPlainText(bytes: Uint8Array, type: 'csv' | 'md' | 'txt'): ExtractedUpload {
  const text = normaliseText(decodeUtf8(bytes));
  if (type === 'csv') return { text, extent: { rows: countCsvRows(text) } };
  const extent = { paragraphs: countParagraphs(text) };
  const title = type === 'md' ? markdownTitle(text) : undefined;
  return title === undefined ? { text, extent } : { text, extent, title };
}
