import { z } from 'zod';
import { zText } from './text.js';

/** Largest accepted file of `POST /api/v1/admin/agents/{id}/uploads`: 50 MB (50 × 1024 × 1024 bytes). */
export const UPLOAD_MAX_BYTES = 50 * 1024 * 1024;

/** Most files in one upload request; one more is a 413. */
export const UPLOAD_MAX_FILES = 10;

/** The multipart field that carries the files (repeat it for several). */
export const UPLOAD_FIELD = 'file';

/** Longest stored name of an uploaded file (the source name), in characters. */
export const UPLOAD_NAME_MAX_CHARS = 200;

/** File-name extensions an upload may carry; the bytes decide the type, the name must agree. */
export const UPLOAD_ACCEPTED_EXTENSIONS = [
  'pdf',
  'docx',
  'doc',
  'xlsx',
  'xls',
  'csv',
  'md',
  'markdown',
  'txt',
  'odt',
  'ods',
] as const;

/** The types an upload is stored as (`markdown` files are type `md`). */
export const ZUploadFileType = z.enum([
  'pdf',
  'docx',
  'doc',
  'xlsx',
  'xls',
  'csv',
  'md',
  'txt',
  'odt',
  'ods',
]);
export type TUploadFileType = z.infer<typeof ZUploadFileType>;

/** What an `upload` source keeps in `config` and its document in `metadata`. */
export const ZUploadMetadata = z.object({
  file_name: zText().describe('The sanitised original file name (the source name)'),
  file_type: ZUploadFileType.describe('The type detected from the bytes'),
  size_bytes: z.number().int().describe('Size of the uploaded file in bytes'),
  sha256: zText().describe('SHA-256 of the uploaded bytes, hex'),
  pages_read: z.number().int().nonnegative().optional().describe('PDF: pages read (those without text too)'),
  sheets_read: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('xlsx, xls, ods: sheets read (at most the first 50)'),
  rows_read: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('xlsx, xls, ods, csv: non-empty rows read, a header row included (at most 10,000 per sheet)'),
  paragraphs_read: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('docx, doc, odt: non-empty paragraphs; md, txt: blocks of text between blank lines'),
});
export type TUploadMetadata = z.infer<typeof ZUploadMetadata>;
