import { createRequire } from 'node:module';
import type { Parser } from 'node-sql-parser';
import { scanSql } from './scan-sql.js';
import type { SqlEngine } from './sql-source-config.js';

let parserClass: typeof Parser | undefined;

/**
 * A SQL parser. node-sql-parser (CommonJS, several megabytes of grammars) is loaded on the first
 * source query checked, not when the service starts: most instances never check one.
 */
function newParser(): Parser {
  if (parserClass === undefined) {
    const loaded: typeof import('node-sql-parser') = createRequire(import.meta.url)('node-sql-parser');
    parserClass = loaded.Parser;
  }
  return new parserClass();
}

/** The verdict on a source query: the statement to run, or why it was refused (shown to admins). */
export type SelectCheck = { ok: true; sql: string } | { ok: false; reason: string };

/** Functions refused in source queries: they sleep, read server files, reach other servers or change settings. */
export const BLOCKED_FUNCTIONS: Readonly<Record<SqlEngine, ReadonlySet<string>>> = {
  postgres: new Set([
    'pg_sleep',
    'pg_sleep_for',
    'pg_sleep_until',
    'pg_read_file',
    'pg_read_binary_file',
    'pg_ls_dir',
    'pg_stat_file',
    'lo_import',
    'lo_export',
    'dblink',
    'dblink_exec',
    'dblink_connect',
    'pg_terminate_backend',
    'pg_cancel_backend',
    'pg_reload_conf',
    'set_config',
    'copy',
    // These run an arbitrary query given as a string, which would slip past every check here.
    'query_to_xml',
    'query_to_xml_and_xmlschema',
    'query_to_xmlschema',
  ]),
  mysql: new Set(['sleep', 'benchmark', 'load_file', 'get_lock', 'master_pos_wait', 'source_pos_wait']),
};

const DIALECTS: Readonly<Record<SqlEngine, { parser: string; name: string }>> = {
  postgres: { parser: 'PostgresQL', name: 'PostgreSQL' },
  mysql: { parser: 'MySQL', name: 'MySQL' },
};

const SINGLE_SELECT = 'only a single SELECT statement is accepted';
const INTO_REASON = 'SELECT … INTO is not accepted: it writes to a table, variable or file';
const LOCKING_REASON = 'locking clauses (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE) are not accepted';
const AMBIGUOUS_REASON =
  "the query reads differently depending on the server's backslash setting: inside quotes write '' rather than \\'";
const LOCKING_PATTERN =
  /\bFOR\s+(?:NO\s+KEY\s+)?UPDATE\b|\bFOR\s+(?:KEY\s+)?SHARE\b|\bLOCK\s+IN\s+SHARE\s+MODE\b/i;
// A data-modifying statement can only hide inside parentheses (a CTE body or a subquery).
const NESTED_WRITE_PATTERN = /\(\s*(INSERT|UPDATE|DELETE|MERGE)\b/i;
// Statement kinds node-sql-parser reports; anything but `select` anywhere in the tree is refused.
const STATEMENT_TYPES: ReadonlySet<string> = new Set([
  'insert',
  'replace',
  'update',
  'delete',
  'merge',
  'create',
  'drop',
  'alter',
  'truncate',
  'rename',
  'grant',
  'revoke',
  'lock',
  'unlock',
  'call',
  'exec',
  'execute',
  'transaction',
  'use',
  'load_data',
  'declare',
  'deallocate',
  'copy',
]);

// First words of statements that are not in STATEMENT_TYPES, for a clearer refusal.
const OTHER_STATEMENTS: ReadonlySet<string> = new Set(
  'SET SHOW DESCRIBE DESC EXPLAIN ANALYZE VACUUM DO BEGIN START COMMIT ROLLBACK SAVEPOINT RELEASE PREPARE LISTEN NOTIFY VALUES TABLE REINDEX CLUSTER REFRESH DISCARD RESET CHECKPOINT HANDLER'.split(
    ' ',
  ),
);

/**
 * Accepts exactly one read-only SELECT (or WITH … SELECT) and returns it trimmed, without its
 * trailing `;`. Refuses writes, several statements, SELECT … INTO, locking clauses and functions in
 * `BLOCKED_FUNCTIONS`. The database's read-only transaction is the second line of defence.
 */
export function validateSelect(query: string, engine: SqlEngine): SelectCheck {
  const text = query.trim();
  if (text === '') return refuse('the query is empty');

  const lexical = checkText(text, engine);
  if (!lexical.ok) return lexical;
  const sql = lexical.sql;

  let parsed: unknown;
  try {
    parsed = newParser().astify(sql, { database: DIALECTS[engine].parser });
  } catch (error) {
    return refuse(describeParseError(error, engine));
  }
  const statements = Array.isArray(parsed) ? parsed : [parsed];
  if (statements.length !== 1) return refuse(`${SINGLE_SELECT}; found ${statements.length} statements`);
  const root = statements[0];
  const rootType = isNode(root) && typeof root.type === 'string' ? root.type : 'an unknown statement';
  if (rootType !== 'select') return refuse(`${SINGLE_SELECT}; found ${rootType.toUpperCase()}`);
  const problem = findProblem(root, engine);
  return problem === undefined ? { ok: true, sql } : refuse(problem);
}

/** The checks that need no parser: they hold even where the parser and the server disagree. */
function checkText(text: string, engine: SqlEngine): SelectCheck {
  let cut: number | undefined;
  let masked = '';
  // Scan both ways backslashes may behave; both must agree there is one statement, ending at `cut`.
  for (const backslashEscapes of engine === 'mysql' ? [true, false] : [false, true]) {
    const scan = scanSql(text, engine, { backslashEscapes });
    if (!scan.ok) return refuse(cut === undefined ? scan.reason : AMBIGUOUS_REASON);
    const trailing = scan.masked.trimEnd().endsWith(';') ? scan.masked.trimEnd().length - 1 : undefined;
    const inner = scan.semicolons.filter((offset) => offset !== trailing);
    const stray = inner[0];
    if (stray !== undefined) {
      const after = /^[\s;(]*([A-Za-z]+)/.exec(scan.masked.slice(stray))?.[1];
      const what = after === undefined ? '' : ` (${after.toUpperCase()})`;
      return refuse(`${SINGLE_SELECT}; found a second statement after ";"${what}`);
    }
    const end = trailing ?? text.length;
    if (cut !== undefined && cut !== end) return refuse(AMBIGUOUS_REASON);
    if (cut === undefined) masked = scan.masked;
    cut = end;
  }
  const sql = text.slice(0, cut).trim();
  const code = masked.slice(0, cut);
  if (code.trim() === '') return refuse('the query has no statement, only comments');

  const first = /^[\s(]*([A-Za-z]+)/.exec(code)?.[1]?.toUpperCase();
  if (first === undefined) return refuse(`the query must start with SELECT or WITH, not "${code.trim()[0]}"`);
  if (first !== 'SELECT' && first !== 'WITH') {
    if (STATEMENT_TYPES.has(first.toLowerCase()) || OTHER_STATEMENTS.has(first)) {
      return refuse(`${SINGLE_SELECT}; found ${first}`);
    }
    return refuse(`the query must start with SELECT or WITH, not "${first.slice(0, 40)}"`);
  }
  const nested = NESTED_WRITE_PATTERN.exec(code)?.[1];
  if (nested !== undefined) return refuse(`${SINGLE_SELECT}; found ${nested.toUpperCase()} inside the query`);
  if (LOCKING_PATTERN.test(code)) return refuse(LOCKING_REASON);
  if (/\bINTO\b/i.test(code)) return refuse(INTO_REASON);
  for (const match of code.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    const name = match[1]?.toLowerCase();
    if (name !== undefined && BLOCKED_FUNCTIONS[engine].has(name)) return refuse(blockedFunction(name));
  }
  return { ok: true, sql };
}

type AstNode = { [key: string]: unknown };

function isNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Walks the whole tree (CTEs, subqueries, expressions) for anything but a plain read. */
function findProblem(root: unknown, engine: SqlEngine): string | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      stack.push(...value);
      continue;
    }
    if (!isNode(value)) continue;
    const type = typeof value.type === 'string' ? value.type.toLowerCase() : '';
    if (STATEMENT_TYPES.has(type)) return `${SINGLE_SELECT}; found ${type.toUpperCase()} inside the query`;
    if (type === 'select') {
      if (isNode(value.into) && value.into.position != null) return INTO_REASON;
      if (value.locking_read != null) return LOCKING_REASON;
    }
    if (type === 'function' || type === 'aggr_func') {
      const name = functionName(value.name);
      if (name !== undefined && BLOCKED_FUNCTIONS[engine].has(name)) return blockedFunction(name);
    }
    stack.push(...Object.values(value));
  }
  return undefined;
}

/** node-sql-parser names functions `{ name: [{ value }], schema? }` (or a plain string for aggregates). */
function functionName(name: unknown): string | undefined {
  if (typeof name === 'string') return name.toLowerCase();
  if (!isNode(name) || !Array.isArray(name.name)) return undefined;
  const last: unknown = name.name.at(-1);
  return isNode(last) && typeof last.value === 'string' ? last.value.toLowerCase() : undefined;
}

function describeParseError(error: unknown, engine: SqlEngine): string {
  const dialect = DIALECTS[engine].name;
  let where = '';
  let found = '';
  if (isNode(error)) {
    const start = isNode(error.location) && isNode(error.location.start) ? error.location.start : undefined;
    if (start && typeof start.line === 'number' && typeof start.column === 'number') {
      where = ` at line ${start.line}, column ${start.column}`;
    }
    const message = typeof error.message === 'string' ? error.message : '';
    found = / but (.{1,40}) found\.?$/.exec(message)?.[1] ?? '';
  }
  const detail = found === '' ? '' : ` (unexpected ${found})`;
  return `the query could not be read as a ${dialect} SELECT${where}${detail}; only a single plain SELECT is accepted`;
}

function blockedFunction(name: string): string {
  return `the function ${name}() is not allowed in a source query`;
}

function refuse(reason: string): SelectCheck {
  return { ok: false, reason };
}
