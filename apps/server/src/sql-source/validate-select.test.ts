import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scanSql } from './scan-sql.js';
import type { SqlEngine } from './sql-source-config.js';
import { validateSelect } from './validate-select.js';

const ENGINES: readonly SqlEngine[] = ['postgres', 'mysql'];

function accepted(query: string, engine: SqlEngine): string {
  const result = validateSelect(query, engine);
  assert.ok(result.ok, `${engine} should accept ${JSON.stringify(query)}: ${result.ok ? '' : result.reason}`);
  return result.sql;
}

function refused(query: string, engine: SqlEngine, reason?: RegExp): string {
  const result = validateSelect(query, engine);
  assert.ok(!result.ok, `${engine} should refuse ${JSON.stringify(query)}`);
  if (reason) assert.match(result.reason, reason, JSON.stringify(query));
  return result.reason;
}

describe('validateSelect accepts', () => {
  test('one SELECT, returned trimmed and without a trailing ";"', () => {
    for (const engine of ENGINES) {
      assert.equal(accepted('SELECT 1', engine), 'SELECT 1');
      assert.equal(
        accepted('  select id, title from posts where id > 3 order by id  ;  ', engine),
        'select id, title from posts where id > 3 order by id',
      );
      assert.equal(accepted('SELECT 1; -- done', engine), 'SELECT 1');
      assert.equal(
        accepted('SELECT a FROM t UNION SELECT b FROM u', engine),
        'SELECT a FROM t UNION SELECT b FROM u',
      );
      accepted('SELECT * FROM (SELECT 1 AS a) q WHERE a IN (SELECT 1)', engine);
      accepted('select upper(name), count(*) from t group by 1 having count(*) > 1 limit 10', engine);
    }
  });

  test('WITH … SELECT when every CTE is a SELECT', () => {
    for (const engine of ENGINES) {
      accepted('WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT * FROM b', engine);
    }
  });

  test('";" and keywords inside strings, quoted names and comments', () => {
    assert.equal(
      accepted(`SELECT ';' AS a, "x;y", 'DELETE FROM t' FROM t /* ; */ -- ;`, 'postgres').length > 0,
      true,
    );
    accepted("SELECT 'it''s; fine', $$;DROP TABLE t$$, $tag$ ; $tag$", 'postgres');
    accepted("SELECT `a;b`, \"c;d\", 'e''f;' FROM t # ; comment", 'mysql');
  });

  test('PostgreSQL-specific syntax', () => {
    accepted("select a::text, b->>'x', count(*) over (partition by c) from t where d ilike 'x%'", 'postgres');
    accepted('select distinct on (a) a, now(), coalesce(b, c) from t', 'postgres');
  });
});

describe('validateSelect refuses', () => {
  test('other statements, naming what it found', () => {
    const cases: [string, string][] = [
      ['DELETE FROM t', 'DELETE'],
      ['UPDATE t SET a = 1', 'UPDATE'],
      ['INSERT INTO t VALUES (1)', 'INSERT'],
      ['DROP TABLE t', 'DROP'],
      ['TRUNCATE t', 'TRUNCATE'],
      ['CREATE TABLE t (a int)', 'CREATE'],
      ['ALTER TABLE t ADD COLUMN b int', 'ALTER'],
      ['GRANT ALL ON t TO bob', 'GRANT'],
      ['SET search_path = x', 'SET'],
      ['  (DELETE FROM t)', 'DELETE'],
    ];
    for (const engine of ENGINES) {
      for (const [query, found] of cases) {
        refused(query, engine, new RegExp(`^only a single SELECT statement is accepted; found ${found}$`));
      }
    }
    refused('COPY t TO STDOUT', 'postgres', /found COPY/);
    refused('SELEC 1', 'postgres', /must start with SELECT or WITH, not "SELEC"/);
    refused('', 'postgres', /empty/);
    refused('-- only a comment', 'postgres', /only comments/);
  });

  test('several statements, even when a comment or string hides the ";"', () => {
    for (const engine of ENGINES) {
      refused(
        'SELECT 1; DELETE FROM t',
        engine,
        /^only a single SELECT statement is accepted; found a second statement after ";" \(DELETE\)$/,
      );
      refused('SELECT 1 /* */; DROP TABLE x', engine, /second statement.*DROP/);
      refused('SELECT 1 -- \n; DELETE FROM t', engine, /second statement.*DELETE/);
      refused('SELECT 1;;', engine, /second statement/);
      refused('SELECT 1; SELECT 2', engine, /second statement.*SELECT/);
    }
    // A backslash escapes the quote only under some server settings: both readings must be safe.
    refused("SELECT 'a\\'; DELETE FROM t; -- '", 'postgres', /second statement/);
    refused("SELECT 'a\\'; DELETE FROM t; -- '", 'mysql', /second statement/);
    refused('SELECT "a\\"; DELETE FROM t; -- "', 'mysql', /second statement/);
    // Unambiguous only with a backslash reading: refused, with a hint.
    refused(
      "SELECT 'O\\'Brien' AS name",
      'mysql',
      /backslash setting: inside quotes write '' rather than \\'/,
    );
    // MySQL `--` needs a space to start a comment: `1--1` is arithmetic.
    refused('SELECT 1--1; DELETE FROM t', 'mysql', /second statement/);
    refused('SELECT 1 /*! ; DELETE FROM t */', 'mysql', /executable comments/);
    refused('SELECT 1 /*M! ; DELETE FROM t */', 'mysql', /executable comments/);
    // PostgreSQL block comments nest.
    refused('SELECT 1 /* a /* b */ ; */ ; DELETE FROM t', 'postgres', /second statement.*DELETE/);
  });

  test('unclosed strings, names and comments', () => {
    refused("SELECT 'abc", 'postgres', /string literal is not closed/);
    refused('SELECT "abc', 'postgres', /not closed/);
    refused('SELECT `abc', 'mysql', /backquoted name is not closed/);
    refused('SELECT 1 /* abc', 'mysql', /comment is not closed/);
    refused('SELECT $x$ abc', 'postgres', /\$x\$-quoted string is not closed/);
  });

  test('SELECT … INTO', () => {
    refused('SELECT a INTO new_table FROM t', 'postgres', /INTO is not accepted/);
    refused('SELECT a INTO @x FROM t', 'mysql', /INTO is not accepted/);
    refused("SELECT a FROM t INTO OUTFILE '/tmp/x'", 'mysql', /INTO is not accepted/);
  });

  test('locking clauses', () => {
    for (const engine of ENGINES) {
      refused('SELECT a FROM t FOR UPDATE', engine, /locking clauses/);
      refused('SELECT a FROM t FOR SHARE', engine, /locking clauses/);
    }
    refused('SELECT a FROM t FOR NO KEY UPDATE', 'postgres', /locking clauses/);
    refused('SELECT a FROM t FOR KEY SHARE', 'postgres', /locking clauses/);
    refused('SELECT a FROM t LOCK IN SHARE MODE', 'mysql', /locking clauses/);
  });

  test('data-modifying CTEs', () => {
    refused(
      'WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d',
      'postgres',
      /found DELETE inside the query/,
    );
    refused('WITH d AS (INSERT INTO t VALUES (1) RETURNING id) SELECT * FROM d', 'postgres', /found INSERT/);
    refused('WITH d AS (UPDATE t SET a = 1 RETURNING a) SELECT * FROM d', 'postgres', /found UPDATE/);
    refused(
      'WITH d AS MATERIALIZED ( delete from t returning *) SELECT * FROM d',
      'postgres',
      /found DELETE/,
    );
  });

  test('dangerous functions, however they are spelled', () => {
    const postgres = [
      'SELECT pg_sleep(1)',
      'SELECT PG_SLEEP (1)',
      'SELECT pg_catalog.pg_sleep(1)',
      'SELECT "pg_sleep"(1)',
      'SELECT (SELECT pg_sleep(1))',
      "SELECT pg_read_file('/etc/passwd')",
      "SELECT pg_read_binary_file('/etc/passwd')",
      "SELECT lo_import('/etc/passwd')",
      "SELECT lo_export(1, '/tmp/x')",
      "SELECT * FROM dblink('host=x', 'select 1') AS t(a int)",
      'SELECT pg_terminate_backend(1)',
      "SELECT set_config('a.b', 'c', false)",
      "SELECT query_to_xml('delete from t', true, true, '')",
      'SELECT a FROM t WHERE pg_sleep(1) IS NULL',
    ];
    for (const query of postgres)
      refused(query, 'postgres', /^the function \w+\(\) is not allowed in a source query$/);
    const mysql = [
      'SELECT sleep(1)',
      'SELECT SLEEP(1)',
      'SELECT `sleep`(1)',
      "SELECT benchmark(1000000, md5('a'))",
      "SELECT load_file('/etc/passwd')",
      'SELECT a FROM t WHERE sleep(1) = 0',
    ];
    for (const query of mysql)
      refused(query, 'mysql', /^the function \w+\(\) is not allowed in a source query$/);
    // Only the engine's own list applies: `sleep` is no PostgreSQL built-in.
    accepted('SELECT sleep(1)', 'postgres');
  });

  test('SQL the parser cannot read, with where it stopped', () => {
    const reason = refused('SELECT a FROM WHERE', 'postgres');
    assert.match(reason, /could not be read as a PostgreSQL SELECT at line 1, column \d+/);
    refused('SELECT FROM FROM', 'mysql', /could not be read as a MySQL SELECT/);
  });
});

describe('scanSql', () => {
  test('blanks strings, names and comments to spaces and keeps offsets', () => {
    const sql = `SELECT 'a;b', "c" -- x;\n/* y; */ FROM t;`;
    const scan = scanSql(sql, 'postgres', { backslashEscapes: false });
    assert.ok(scan.ok);
    assert.equal(scan.masked.length, sql.length);
    assert.deepEqual(scan.semicolons, [sql.length - 1]);
    assert.equal(scan.masked.replace(/\s+/g, ' '), 'SELECT , FROM t;');
  });

  test("a PostgreSQL E'…' string escapes quotes with a backslash in either mode", () => {
    for (const backslashEscapes of [false, true]) {
      const scan = scanSql("SELECT E'a\\'; b', 'c'';d'", 'postgres', { backslashEscapes });
      assert.ok(scan.ok);
      assert.deepEqual(scan.semicolons, []);
    }
  });

  test('reads $1 and identifiers with $ as code, not dollar quotes', () => {
    const scan = scanSql('SELECT a$b$ FROM t WHERE x = $1;', 'postgres', { backslashEscapes: false });
    assert.ok(scan.ok);
    assert.deepEqual(scan.semicolons, [31]);
  });
});
