import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isValidSqlHost, MAX_SQL_QUERY_CHARS, ZSqlSourceConfig } from './sql-source-config.js';

const BASE = {
  type: 'sql',
  engine: 'postgres',
  host: 'db.example.com',
  database: 'shop',
  user: 'reader',
  password: '',
  query: 'SELECT id, name FROM products',
};

describe('ZSqlSourceConfig', () => {
  test('fills the engine default port and ssl=false', () => {
    const pgConfig = ZSqlSourceConfig.parse(BASE);
    assert.equal(pgConfig.port, 5432);
    assert.equal(pgConfig.ssl, false);
    assert.equal(pgConfig.password, '');
    assert.equal(ZSqlSourceConfig.parse({ ...BASE, engine: 'mysql' }).port, 3306);
    assert.equal(ZSqlSourceConfig.parse({ ...BASE, port: 6543, ssl: true }).port, 6543);
  });

  test('keeps the column options and normalises the host', () => {
    const config = ZSqlSourceConfig.parse({
      ...BASE,
      host: ' DB.Example.COM ',
      title_column: 'name',
      id_column: 'id',
      url_column: 'link',
    });
    assert.equal(config.host, 'db.example.com');
    assert.deepEqual([config.title_column, config.id_column, config.url_column], ['name', 'id', 'link']);
  });

  test('ports 1 and 65535 pass; 0, 65536 and fractions do not', () => {
    assert.equal(ZSqlSourceConfig.parse({ ...BASE, port: 1 }).port, 1);
    assert.equal(ZSqlSourceConfig.parse({ ...BASE, port: 65535 }).port, 65535);
    for (const port of [0, 65536, 5432.5, '5432']) {
      assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, port }).success, false, String(port));
    }
  });

  test('the query may be 10 000 characters, not 10 001', () => {
    const at = `SELECT '${'x'.repeat(MAX_SQL_QUERY_CHARS - 9)}'`;
    assert.equal(at.length, MAX_SQL_QUERY_CHARS);
    assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, query: at }).success, true);
    assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, query: `${at} x` }).success, false);
    assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, query: '  ' }).success, false);
  });

  test('refuses missing fields, unknown engines and unknown keys', () => {
    for (const key of ['host', 'database', 'user', 'password', 'query', 'engine'] as const) {
      const { [key]: _removed, ...rest } = BASE;
      assert.equal(ZSqlSourceConfig.safeParse(rest).success, false, key);
    }
    assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, engine: 'oracle' }).success, false);
    assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, extra: 1 }).success, false);
    assert.equal(ZSqlSourceConfig.safeParse({ ...BASE, title_column: '' }).success, false);
  });
});

describe('isValidSqlHost', () => {
  test('accepts names and IP literals', () => {
    for (const host of ['db', 'db.example.com', 'db-1.example.com.', '10.0.0.5', '::1', '2001:db8::5']) {
      assert.equal(isValidSqlHost(host), true, host);
    }
  });

  test('refuses schemes, ports, paths, credentials and odd characters', () => {
    for (const host of [
      '',
      'postgres://db',
      'db:5432',
      'db/x',
      'a@b',
      '[::1]',
      '-db.example',
      'db..example',
      'db example',
      'a'.repeat(64),
    ]) {
      assert.equal(isValidSqlHost(host), false, host);
    }
  });
});
