import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZLeadPage } from '@service/contract';
import { newId } from '../src/security/ids.js';
import { csvCell } from '../src/services/conversations/leads-export.js';
import type { Tenant } from './support/test-app.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';
import { createWidgetAgent } from './support/widget.js';

const DAY = (n: number) => new Date(Date.UTC(2026, 10, n, 12, 0, 0));

/** Parses RFC 4180 CSV (quoted cells, doubled quotes, CRLF) into rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += char;
  }
  assert.equal(cell, '', 'the CSV ends with CRLF');
  return rows;
}

describe(`admin API: leads search, date filter and CSV export (${TEST_ENGINE})`, () => {
  let t: TestApp;
  let tenant: Tenant;
  let agentA: string;
  let agentB: string;
  let otherTenant: Tenant;

  const get = (path: string, auth = tenant.auth) =>
    t.app.inject({ method: 'GET', url: `/api/v1/admin${path}`, headers: auth });
  const emails = async (query: string) => {
    const res = await get(`/leads?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return ZLeadPage.parse(res.json()).data.map((lead) => lead.email);
  };
  const insertLead = (
    workspaceId: string,
    agentId: string,
    values: { email: string; name?: string; phone?: string; day: number; push_error?: string },
  ) =>
    t.database.db
      .insertInto('leads')
      .values({
        id: newId(),
        workspace_id: workspaceId,
        agent_id: agentId,
        email: values.email,
        email_normalized: values.email.toLowerCase(),
        name: values.name ?? '',
        phone: values.phone ?? '',
        push_error: values.push_error ?? null,
        created_at: DAY(values.day),
        updated_at: DAY(values.day),
      })
      .execute();

  before(async () => {
    t = await createTestApp();
    const a = await createWidgetAgent(t);
    tenant = a.tenant;
    agentA = a.agentId;
    agentB = (await createWidgetAgent(t, {}, tenant)).agentId;
    const other = await createWidgetAgent(t);
    otherTenant = other.tenant;
    const ws = tenant.workspace.id;
    await insertLead(ws, agentA, { email: 'ann@example.com', name: 'Ann Lee', phone: '+49 30 1234', day: 1 });
    await insertLead(ws, agentA, { email: 'bob_smith@example.com', name: 'Bob', day: 2 });
    await insertLead(ws, agentB, {
      email: 'cy@shop.test',
      name: '=HYPERLINK("http://evil.test","x")',
      phone: '-1+1',
      day: 3,
    });
    await insertLead(ws, agentB, {
      email: 'dee@example.com',
      name: 'Dee, "the" 100%',
      phone: '@SUM(A1)',
      day: 4,
      push_error: 'site said 500\r\nline',
    });
    await insertLead(other.tenant.workspace.id, other.agentId, {
      email: 'ann@other.test',
      name: 'Ann Lee',
      day: 1,
    });
  });
  after(() => t.close());

  test('search finds email, name or phone, case-insensitively, literally', async () => {
    assert.deepEqual(await emails('q=ANN'), ['ann@example.com']);
    assert.deepEqual(await emails('q=example.com'), [
      'dee@example.com',
      'bob_smith@example.com',
      'ann@example.com',
    ]);
    assert.deepEqual(await emails('q=30%201234'), ['ann@example.com']);
    assert.deepEqual(await emails('q=b_s'), ['bob_smith@example.com']);
    assert.deepEqual(await emails('q=_'), ['bob_smith@example.com']);
    assert.deepEqual(await emails('q=100%25'), ['dee@example.com']);
    assert.deepEqual(await emails('q=%25'), ['dee@example.com']);
    assert.deepEqual(await emails('q=%5C'), []);
    assert.deepEqual(await emails(`q=${encodeURIComponent("' or 1=1 --")}`), []);
    assert.deepEqual(await emails('q=%20%20'), [
      'dee@example.com',
      'cy@shop.test',
      'bob_smith@example.com',
      'ann@example.com',
    ]);
  });

  test('date filter (from inclusive, to exclusive), agent filter, and together', async () => {
    assert.deepEqual(await emails(`from=${DAY(3).toISOString()}`), ['dee@example.com', 'cy@shop.test']);
    assert.deepEqual(await emails(`to=${DAY(2).toISOString()}`), ['ann@example.com']);
    assert.deepEqual(await emails(`from=${DAY(2).toISOString()}&to=${DAY(4).toISOString()}`), [
      'cy@shop.test',
      'bob_smith@example.com',
    ]);
    assert.deepEqual(await emails(`agent_id=${agentB}&q=dee`), ['dee@example.com']);
    assert.deepEqual(await emails(`agent_id=${agentA}&from=${DAY(2).toISOString()}&q=bob`), [
      'bob_smith@example.com',
    ]);
  });

  test('bad filters are 422 and at the edges', async () => {
    for (const query of [
      `q=${'a'.repeat(201)}`,
      'from=today',
      `from=${DAY(2).toISOString()}&to=${DAY(2).toISOString()}`,
      'q=%00',
    ]) {
      for (const path of ['/leads', '/leads/export']) {
        const res = await get(`${path}?${query}`);
        assert.equal(res.statusCode, 422, `${path}?${query}`);
        assert.equal(res.json().code, 'validation_failed');
      }
    }
    assert.equal((await get(`/leads?q=${'a'.repeat(200)}`)).statusCode, 200);
  });

  test('CSV export: header, filters, quoting, formula cells defused, attachment name', async () => {
    const res = await get('/leads/export');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    assert.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="leads-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const rows = parseCsv(res.body);
    assert.deepEqual(rows[0], [
      'created_at',
      'email',
      'name',
      'phone',
      'agent_id',
      'agent_name',
      'conversation_id',
      'site_user_id',
      'pushed_at',
      'push_error',
    ]);
    assert.deepEqual(
      rows.slice(1).map((row) => row[1]),
      ['dee@example.com', 'cy@shop.test', 'bob_smith@example.com', 'ann@example.com'],
    );
    const dee = rows[1] ?? [];
    assert.equal(dee[2], 'Dee, "the" 100%');
    assert.equal(dee[3], "'@SUM(A1)");
    assert.equal(dee[9], 'site said 500\r\nline');
    const cy = rows[2] ?? [];
    assert.equal(cy[2], `'=HYPERLINK("http://evil.test","x")`);
    assert.equal(cy[3], "'-1+1");
    assert.equal(rows[4]?.[0], DAY(1).toISOString());
    assert.ok(!res.body.includes('ann@other.test'), "another workspace's lead is never exported");

    const filtered = parseCsv((await get(`/leads/export?agent_id=${agentA}&q=ann`)).body);
    assert.deepEqual(
      filtered.slice(1).map((row) => row[1]),
      ['ann@example.com'],
    );
    const none = parseCsv((await get(`/leads/export?agent_id=${agentA}&from=${DAY(5).toISOString()}`)).body);
    assert.equal(none.length, 1, 'only the header');
    assert.equal((await get('/leads/export', {})).statusCode, 401);
    assert.equal(parseCsv((await get('/leads/export', otherTenant.auth)).body).length, 2);
  });

  test('csvCell: formula starts, quoting, empty', () => {
    assert.equal(csvCell(null), '');
    assert.equal(csvCell('plain'), 'plain');
    assert.equal(csvCell(42), '42');
    assert.equal(csvCell('=1+1'), "'=1+1");
    assert.equal(csvCell('+1'), "'+1");
    assert.equal(csvCell('-1'), "'-1");
    assert.equal(csvCell('@x'), "'@x");
    assert.equal(csvCell('\tx'), "'\tx");
    assert.equal(csvCell('\rx'), '"\'\rx"');
    assert.equal(csvCell('a,b'), '"a,b"');
    assert.equal(csvCell('say "hi"'), '"say ""hi"""');
    assert.equal(csvCell(' lead'), '" lead"');
    assert.equal(csvCell('a\nb'), '"a\nb"');
  });
});
