import { sha256Hex } from '../security/hashing.js';
import { capCell, DEFAULT_MAX_CELL_BYTES } from './run-select.js';
import type { SqlColumnOptions } from './sql-source-config.js';

/** One document made from one result row, before it is stored and indexed. */
export type SqlDocumentDraft = {
  /** The `id_column` value, or `sha256:<hex>` of the row's canonical JSON when there is none. */
  externalId: string;
  title: string;
  /** The `url_column` value when it is an http(s) URL, else null. */
  url: string | null;
  /** `column: value` lines of the other columns. */
  text: string;
};

const MAX_TITLE_CHARS = 500;

/**
 * Turns query rows into document drafts. The title, id and url columns are taken out of the text;
 * empty values and binary cells are left out, and rows left with no text are skipped.
 */
export function rowsToDocuments(
  result: { columns: readonly string[]; rows: readonly Record<string, unknown>[] },
  options: SqlColumnOptions = {},
): SqlDocumentDraft[] {
  const special = new Set([options.title_column, options.id_column, options.url_column]);
  const textColumns = result.columns.filter((column) => !special.has(column));
  const drafts: SqlDocumentDraft[] = [];
  result.rows.forEach((row, index) => {
    const lines: string[] = [];
    for (const column of textColumns) {
      const value = formatValue(row[column]);
      if (value !== undefined) lines.push(`${column}: ${value}`);
    }
    if (lines.length === 0) return;
    const id = options.id_column === undefined ? undefined : formatValue(row[options.id_column]);
    const title = options.title_column === undefined ? undefined : formatValue(row[options.title_column]);
    drafts.push({
      externalId: id ?? `sha256:${sha256Hex(canonicalJson(row, result.columns))}`,
      title: (title ?? `Row ${index + 1}`).replace(/\s+/g, ' ').slice(0, MAX_TITLE_CHARS),
      url: options.url_column === undefined ? null : httpUrl(row[options.url_column]),
      text: lines.join('\n'),
    });
  });
  return drafts;
}

/**
 * A cell as text: Dates in ISO 8601, objects as JSON, binary skipped; undefined when there is
 * nothing to show (null, blank, binary, an invalid date).
 */
export function formatValue(value: unknown): string | undefined {
  let text: string;
  if (value === null || value === undefined || Buffer.isBuffer(value) || value instanceof Uint8Array) {
    return undefined;
  } else if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return undefined;
    text = value.toISOString();
  } else if (typeof value === 'string') {
    text = value;
  } else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    text = String(value);
  } else {
    text = JSON.stringify(value, jsonReplacer) ?? '';
  }
  const capped = capCell(text.trim(), DEFAULT_MAX_CELL_BYTES);
  return typeof capped === 'string' && capped !== '' ? capped : undefined;
}

function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** `[column, value]` pairs in column order, object keys sorted: the same row always hashes the same. */
function canonicalJson(row: Record<string, unknown>, columns: readonly string[]): string {
  return JSON.stringify(
    columns.map((column) => [column, canonicalValue(row[column])]),
    jsonReplacer,
  );
}

function canonicalValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (Buffer.isBuffer(value)) return { base64: value.toString('base64') };
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, canonicalValue(inner)]));
  }
  return value;
}

function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}
