// What every upload's extraction shares, without the parsers: the text cap, the types' names and
// how failures read. Kept apart from extract-upload-text.ts so the main thread (which extracts
// only plain text itself) never loads pdf.js, mammoth or the spreadsheet reader.
import type { UploadType } from './detect-upload-type.js';
import type { ExtractedUpload } from './extract-plain-text.js';
import { UploadLimitError } from './upload-limit-error.js';

/**
 * Most characters of text one upload may yield: the same cap as a pasted text source's text
 * (the contract's 2,000,000). A longer text is refused rather than cut short silently.
 */
export const MAX_TEXT_CHARS = 2_000_000;

/** Human names of the types, for messages to the admin. */
export const UPLOAD_TYPE_NAMES: Readonly<Record<UploadType, string>> = {
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

/** Throws when `length` characters of text are over the cap. */
export function checkTextLength(length: number, maxTextChars: number): void {
  if (length > maxTextChars) {
    throw new UploadLimitError(
      `its text is longer than ${maxTextChars.toLocaleString('en-US')} characters, the most one upload may hold`,
    );
  }
}

/**
 * Runs one type's extraction and checks the text's length; any failure becomes an Error whose
 * message names the type and says whether the file is too large or could not be read.
 */
export async function extractWithinRules(
  type: UploadType,
  maxTextChars: number,
  extract: () => ExtractedUpload | Promise<ExtractedUpload>,
): Promise<ExtractedUpload> {
  try {
    const extracted = await extract();
    checkTextLength(extracted.text.length, maxTextChars);
    return extracted;
  } catch (error) {
    const name = UPLOAD_TYPE_NAMES[type];
    if (error instanceof UploadLimitError) throw new Error(`the ${name} file is too large: ${error.message}`);
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`the ${name} file could not be read; it may be damaged (${detail})`, { cause: error });
  }
}
