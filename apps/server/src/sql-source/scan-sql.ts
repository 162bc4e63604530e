import type { SqlEngine } from './sql-source-config.js';

/**
 * The lexical view of a query: `masked` is the text with every string literal, quoted identifier
 * and comment blanked to spaces (same length), and `semicolons` the offsets of `;` outside them.
 */
export type SqlScan = { ok: true; masked: string; semicolons: number[] } | { ok: false; reason: string };

/** Options of `scanSql`. */
export type ScanOptions = {
  /**
   * Whether `\` escapes a quote inside ordinary string literals. It depends on server settings
   * (PostgreSQL `standard_conforming_strings`, MySQL `NO_BACKSLASH_ESCAPES` / `ANSI_QUOTES`), so
   * callers scan both ways and refuse when either way finds something.
   */
  backslashEscapes: boolean;
};

const IDENTIFIER_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;
// PostgreSQL dollar quote opener: `$$` or `$tag$`, tag = identifier without `$`.
const DOLLAR_TAG = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

/** Splits a query into code and non-code the way `engine` does; never throws. */
export function scanSql(sql: string, engine: SqlEngine, options: ScanOptions): SqlScan {
  const masked = sql.split('');
  const semicolons: number[] = [];
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to; k += 1) masked[k] = ' ';
  };
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    const next = sql[i + 1];
    let end: number | { reason: string } | undefined;
    if (char === ';') {
      semicolons.push(i);
    } else if (char === '-' && next === '-' && isLineComment(sql, i, engine)) {
      const newline = sql.indexOf('\n', i);
      end = newline === -1 ? sql.length : newline;
    } else if (char === '#' && engine === 'mysql') {
      const newline = sql.indexOf('\n', i);
      end = newline === -1 ? sql.length : newline;
    } else if (char === '/' && next === '*') {
      end = blockCommentEnd(sql, i, engine);
    } else if (char === "'") {
      const escapes = options.backslashEscapes || (engine === 'postgres' && isEscapeStringPrefix(sql, i));
      end = quotedEnd(sql, i, "'", escapes, 'a string literal');
    } else if (char === '"') {
      // PostgreSQL: always an identifier. MySQL: a string, or an identifier under ANSI_QUOTES.
      const escapes = engine === 'mysql' && options.backslashEscapes;
      end = quotedEnd(sql, i, '"', escapes, 'a double-quoted name or string');
    } else if (char === '`' && engine === 'mysql') {
      end = quotedEnd(sql, i, '`', false, 'a backquoted name');
    } else if (char === '$' && engine === 'postgres' && !isIdentifierChar(sql[i - 1])) {
      end = dollarQuoteEnd(sql, i);
    }
    if (typeof end === 'object') return { ok: false, reason: end.reason };
    if (end === undefined) {
      i += 1;
    } else {
      blank(i, end);
      i = end;
    }
  }
  return { ok: true, masked: masked.join(''), semicolons };
}

function isIdentifierChar(char: string | undefined): boolean {
  return char !== undefined && IDENTIFIER_CHAR.test(char);
}

/** MySQL needs whitespace (or the end) after `--` for a comment; `1--1` is arithmetic there. */
function isLineComment(sql: string, at: number, engine: SqlEngine): boolean {
  if (engine === 'postgres') return true;
  const after = sql[at + 2];
  return after === undefined || after.charCodeAt(0) <= 0x20 || /\s/.test(after);
}

/** `E'…'` (or `e'…'`) is a PostgreSQL escape string, unless the `E` ends a longer word. */
function isEscapeStringPrefix(sql: string, quoteAt: number): boolean {
  const prefix = sql[quoteAt - 1];
  return (prefix === 'E' || prefix === 'e') && !isIdentifierChar(sql[quoteAt - 2]);
}

/** The offset just past a quoted token starting at `at`; a doubled quote stays inside. */
function quotedEnd(
  sql: string,
  at: number,
  quote: string,
  backslashEscapes: boolean,
  what: string,
): number | { reason: string } {
  let k = at + 1;
  while (k < sql.length) {
    const char = sql[k];
    if (backslashEscapes && char === '\\') {
      k += 2;
    } else if (char === quote) {
      if (sql[k + 1] !== quote) return k + 1;
      k += 2;
    } else {
      k += 1;
    }
  }
  return { reason: `${what} is not closed` };
}

/** Block comments nest in PostgreSQL; MySQL runs the body of `/*! … *\/` and `/*M! … *\/`, so those are refused. */
function blockCommentEnd(sql: string, at: number, engine: SqlEngine): number | { reason: string } {
  if (engine === 'mysql' && (sql.startsWith('/*!', at) || sql.startsWith('/*M!', at))) {
    return { reason: 'MySQL executable comments (/*! … */) are not accepted' };
  }
  let depth = 0;
  let k = at;
  while (k < sql.length) {
    if (sql.startsWith('/*', k)) {
      depth = engine === 'postgres' ? depth + 1 : 1;
      k += 2;
    } else if (sql.startsWith('*/', k)) {
      depth -= 1;
      k += 2;
      if (depth === 0) return k;
    } else {
      k += 1;
    }
  }
  return { reason: 'a /* comment is not closed' };
}

/** `$tag$ … $tag$`; a `$` that opens no tag (`$1`, a lone `$`) is left as code. */
function dollarQuoteEnd(sql: string, at: number): number | undefined | { reason: string } {
  const tag = DOLLAR_TAG.exec(sql.slice(at, at + 256))?.[0];
  if (tag === undefined) return undefined;
  const close = sql.indexOf(tag, at + tag.length);
  if (close === -1) return { reason: `a ${tag}-quoted string is not closed` };
  return close + tag.length;
}
