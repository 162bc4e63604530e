import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  LOCAL_MARIADB as MARIADB,
  LOCAL_POSTGRES as PG,
  LOCAL_POSTGRES_ALLOW as PG_ALLOW,
} from '../../test/support/local-databases.js';
import type { Resolve } from '../outbound/index.js';
import {
  capCell,
  type RunSelectOptions,
  runSelect,
  type SqlConnectTarget,
  wrapWithLimit,
} from './run-select.js';
import type { SqlConnectionConfig } from './sql-source-config.js';

/** Fails the test if a run gets as far as connecting; records where it would have gone. */
function forbidConnect(targets: SqlConnectTarget[]): RunSelectOptions['beforeConnect'] {
  return (target) => {
    targets.push(target);
    throw new Error(`test refused to connect to ${target.address}`);
  };
}

function fakeResolve(table: Record<string, string[]>): Resolve {
  return async (hostname) => {
    const answer = table[hostname];
    if (answer === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return answer;
  };
}

describe('runSelect: the crawl-safety guard, before any connection', () => {
  // Only the last-but-one case passes an allow entry: for the same host on another port.
  const cases: [string, SqlConnectionConfig, RegExp, string[]?][] = [
    ['a loopback literal', PG, /^refused: 127\.0\.0\.1 is a loopback address$/],
    [
      'a private name',
      { ...PG, host: 'db.internal.example' },
      /^refused: db\.internal\.example resolves to 10\.0\.0\.5, a private address$/,
    ],
    ['a name for the metadata service', { ...PG, host: 'meta.example.com' }, /169\.254\.169\.254/],
    [
      'an .internal name',
      { ...MARIADB, host: 'mysql.internal' },
      /^refused: mysql\.internal is a local or internal host name$/,
    ],
    ['localhost', { ...MARIADB, host: 'localhost' }, /local or internal host name/],
    [
      'an unknown name (fails closed)',
      { ...PG, host: 'nowhere.example.com' },
      /^refused: DNS lookup for nowhere\.example\.com failed \(ENOTFOUND\)$/,
    ],
    ['an allowed host on another port', { ...PG, port: 6543 }, /loopback/, PG_ALLOW],
    ['a host that is not a host', { ...PG, host: 'evil.example@127.0.0.1' }, /not a valid host/],
  ];
  const resolve = fakeResolve({
    'db.internal.example': ['10.0.0.5'],
    'meta.example.com': ['93.184.216.34', '169.254.169.254'],
  });
  for (const [name, config, reason, allow] of cases) {
    test(`refuses ${name} and never connects`, async () => {
      const targets: SqlConnectTarget[] = [];
      const result = await runSelect(
        { ...config, query: 'SELECT 1' },
        { resolve, allow: allow ?? [], beforeConnect: forbidConnect(targets) },
      );
      assert.equal(result.ok, false);
      assert.match(result.ok ? '' : result.reason, reason);
      assert.deepEqual(targets, []);
    });
  }

  test('pins the connection to the vetted address and keeps the name for TLS', async () => {
    const targets: SqlConnectTarget[] = [];
    const result = await runSelect(
      { ...PG, host: 'DB.Example.com', port: 6000, query: 'SELECT 1' },
      {
        resolve: fakeResolve({ 'db.example.com': ['93.184.216.34'] }),
        beforeConnect: forbidConnect(targets),
      },
    );
    assert.deepEqual(targets, [
      { engine: 'postgres', host: 'db.example.com', address: '93.184.216.34', port: 6000 },
    ]);
    assert.deepEqual(result, { ok: false, reason: 'failed: test refused to connect to 93.184.216.34' });
  });
});

describe('runSelect: results (injected driver)', () => {
  test('caps rows at the cap, renames duplicate columns, cuts long cells, scrubs the password', async () => {
    const plans: string[] = [];
    const options: RunSelectOptions = {
      allow: PG_ALLOW,
      rowCap: 2,
      maxCellBytes: 4,
      drivers: {
        postgres: async (plan) => {
          plans.push(plan.sql);
          return {
            columns: ['id', 'id', 'body'],
            rows: [
              [1, 2, 'abcdef'],
              [3, 4, 'é'],
              [5, 6, 'x'],
            ],
          };
        },
      },
    };
    const result = await runSelect({ ...PG, query: 'SELECT 1;' }, options);
    assert.deepEqual(result, {
      ok: true,
      columns: ['id', 'id_2', 'body'],
      rows: [
        { id: 1, id_2: 2, body: 'abcd' },
        { id: 3, id_2: 4, body: 'é' },
      ],
      truncated: true,
    });
    assert.deepEqual(plans, ['SELECT * FROM (\nSELECT 1\n) AS q LIMIT 3']);

    const failing = await runSelect(
      { ...PG, password: 's3cret-pw', query: 'SELECT 1' },
      {
        allow: PG_ALLOW,
        drivers: { postgres: async () => Promise.reject(new Error('bad login s3cret-pw for x')) },
      },
    );
    assert.deepEqual(failing, { ok: false, reason: 'failed: bad login [redacted] for x' });
  });

  test('exactly the cap is not truncated', async () => {
    const rows = [[1], [2]];
    const result = await runSelect(
      { ...PG, query: 'SELECT 1' },
      { allow: PG_ALLOW, rowCap: 2, drivers: { postgres: async () => ({ columns: ['a'], rows }) } },
    );
    assert.ok(result.ok);
    assert.equal(result.rows.length, 2);
    assert.equal(result.truncated, false);
  });

  test('wrapWithLimit survives a trailing comment; capCell never splits a character', () => {
    assert.equal(wrapWithLimit('SELECT 1 -- note', 5), 'SELECT * FROM (\nSELECT 1 -- note\n) AS q LIMIT 6');
    assert.equal(capCell('aé', 2), 'a');
    assert.equal(capCell('aé', 3), 'aé');
    assert.deepEqual(capCell(Buffer.from('abcdef'), 3), Buffer.from('abc'));
    assert.equal(capCell(42, 1), 42);
  });
});
