import { type ParsingOptions, read, utils, type WorkSheet } from '@e965/xlsx';

/** Most sheets read from one workbook; later sheets are ignored. */
export const MAX_SHEETS = 50;

/** Most rows read from one sheet (SheetJS stops parsing after these). */
export const MAX_SHEET_ROWS = 10_000;

/** Most columns read from one sheet; a sheet's declared range is clipped to these. */
export const MAX_SHEET_COLUMNS = 200;

/**
 * SheetJS options for untrusted input: parse values only. No formulas, styles, number
 * formats, HTML rich text, VBA or embedded files; only the first sheets and rows.
 */
const PARSING_OPTIONS: ParsingOptions = {
  type: 'buffer',
  dense: true,
  cellFormula: false,
  cellHTML: false,
  cellNF: false,
  cellStyles: false,
  cellDates: false,
  cellText: true,
  sheetStubs: false,
  bookVBA: false,
  bookFiles: false,
  bookDeps: false,
  bookProps: false,
  WTF: false,
  sheetRows: MAX_SHEET_ROWS,
  sheets: Array.from({ length: MAX_SHEETS }, (_, index) => index),
};

/** The sheet's range clipped to the row and column caps, or undefined for an empty sheet. */
function clippedRange(sheet: WorkSheet): string | undefined {
  const ref = sheet['!ref'];
  if (ref === undefined || ref === '') return undefined;
  const range = utils.decode_range(ref);
  range.e.r = Math.min(range.e.r, range.s.r + MAX_SHEET_ROWS - 1);
  range.e.c = Math.min(range.e.c, range.s.c + MAX_SHEET_COLUMNS - 1);
  return utils.encode_range(range);
}

/** One sheet's non-empty rows, cells joined by ` | ` (trailing empty cells dropped). */
function sheetRowsText(sheet: WorkSheet): string[] {
  const range = clippedRange(sheet);
  if (range === undefined) return [];
  const rows: unknown[][] = utils.sheet_to_json(sheet, {
    header: 1,
    range,
    raw: false,
    blankrows: false,
    defval: '',
  });
  const lines: string[] = [];
  for (const row of rows) {
    const cells = row.map((cell) =>
      typeof cell === 'string' ? cell.replace(/\s+/g, ' ').trim() : String(cell),
    );
    while (cells.length > 0 && cells.at(-1) === '') cells.pop();
    if (cells.length > 0) lines.push(cells.join(' | '));
  }
  return lines;
}

/** A workbook as read: its text, the sheets read and their non-empty rows (within the caps). */
export type WorkbookRead = { text: string; sheets: number; rows: number };

/**
 * Reads an xlsx, xls or ods workbook and renders every sheet (up to the caps) as a
 * `Sheet: <name>` heading followed by its rows; sheets without values are left out of the
 * text but counted as read.
 */
export function readWorkbook(bytes: Uint8Array): WorkbookRead {
  const workbook = read(bytes, PARSING_OPTIONS);
  const sections: string[] = [];
  let sheets = 0;
  let rowCount = 0;
  for (const name of workbook.SheetNames.slice(0, MAX_SHEETS)) {
    const sheet = workbook.Sheets[name];
    if (sheet === undefined) continue;
    sheets += 1;
    const rows = sheetRowsText(sheet);
    rowCount += rows.length;
    if (rows.length > 0) sections.push([`Sheet: ${name}`, ...rows].join('\n'));
  }
  return { text: sections.join('\n\n'), sheets, rows: rowCount };
}

/** The text of {@link readWorkbook}. */
export function workbookText(bytes: Uint8Array): string {
  return readWorkbook(bytes).text;
}
