import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAuditLog } from '@service/contract';
import { z } from 'zod';
import { newId } from '../src/security/ids.js';
import { createTestApp, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { TEST_ENGINE } from './support/test-database.js';

const AUDIT = '/api/v1/admin/audit-logs';
const ZPage = z.strictObject({
  data: z.array(ZAuditLog.strict()),
  meta: z.strictObject({ next_before: z.string().nullable() }),
});
const DAY = (n: number) => new Date(Date.UTC(2026, 10, n, 12, 0, 0));

describe(`admin API: audit log filters (${TEST_ENGINE})`, () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  const ids: Record<string, string> = {};

  const get = (tenant: Tenant, query: string) =>
    t.app.inject({ url: `${AUDIT}?${query}`, headers: tenant.auth });
  const page = async (query: string, tenant = acme) => {
    const res = await get(tenant, query);
    assert.equal(res.statusCode, 200, res.body);
    return ZPage.parse(res.json());
  };
  const seeded = (body: z.infer<typeof ZPage>) =>
    body.data.map((row) => Object.entries(ids).find(([, id]) => id === row.id)?.[0]).filter(Boolean);

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Audit filters');
    other = await seedTenant(t, 'Audit filters other');
    const rows = [
      { key: 'a', actor: 'user-1', action: 'agent.created', target: ['agent', 'ag-1'], day: 1, behalf: null },
      { key: 'b', actor: 'user-2', action: 'agent.updated', target: ['agent', 'ag-1'], day: 2, behalf: null },
      {
        key: 'c',
        actor: 'op-9',
        action: 'agent.updated',
        target: ['agent', 'ag-2'],
        day: 3,
        behalf: 'user-1',
      },
      {
        key: 'd',
        actor: 'user-1',
        action: 'webhook.created',
        target: ['webhook', 'wh-1'],
        day: 4,
        behalf: null,
      },
      {
        key: 'e',
        actor: "'; drop table audit_logs; --",
        action: 'x%_',
        target: ['agent', '%'],
        day: 5,
        behalf: null,
      },
    ] as const;
    for (const row of rows) {
      ids[row.key] = newId();
      await t.database.db
        .insertInto('audit_logs')
        .values({
          id: ids[row.key] ?? '',
          workspace_id: acme.workspace.id,
          actor_type: 'user',
          actor_id: row.actor,
          action: row.action,
          target_type: row.target[0],
          target_id: row.target[1],
          metadata: JSON.stringify({}),
          on_behalf_of_user_id: row.behalf,
          created_at: DAY(row.day),
        })
        .execute();
    }
    // Another workspace's record with every filter value of `a`: never listed for acme.
    await t.database.db
      .insertInto('audit_logs')
      .values({
        id: newId(),
        workspace_id: other.workspace.id,
        actor_type: 'user',
        actor_id: 'user-1',
        action: 'agent.created',
        target_type: 'agent',
        target_id: 'ag-1',
        metadata: JSON.stringify({}),
        created_at: DAY(1),
      })
      .execute();
  });
  after(() => t.close());

  test('each filter alone, and combined with AND', async () => {
    assert.deepEqual(seeded(await page('actor_id=user-1')), ['d', 'a']);
    assert.deepEqual(seeded(await page('action=agent.updated')), ['c', 'b']);
    assert.deepEqual(seeded(await page('target_type=agent&target_id=ag-1')), ['b', 'a']);
    assert.deepEqual(seeded(await page('target_type=webhook')), ['d']);
    assert.deepEqual(seeded(await page('actor_id=user-1&action=agent.created')), ['a']);
    assert.deepEqual(seeded(await page('actor_id=user-2&target_id=ag-2')), []);
    const other_ = await page('actor_id=user-1', other);
    assert.equal(other_.data.length, 1);
    assert.equal(other_.data[0]?.id === ids.a, false);
  });

  test('date range: from inclusive, to exclusive, at the edges', async () => {
    assert.deepEqual(seeded(await page(`from=${DAY(2).toISOString()}`)), ['e', 'd', 'c', 'b']);
    assert.deepEqual(seeded(await page(`to=${DAY(2).toISOString()}`)), ['a']);
    const justAfter = new Date(DAY(2).getTime() + 1).toISOString();
    assert.deepEqual(seeded(await page(`from=${justAfter}&to=${DAY(4).toISOString()}`)), ['c']);
    assert.deepEqual(seeded(await page(`from=2026-11-02T13:00:00%2B01:00&to=2026-11-03T12:00:00.001Z`)), [
      'c',
      'b',
    ]);
  });

  test('on-behalf-of rows say who was viewed as', async () => {
    const body = await page('actor_id=op-9');
    assert.equal(body.data[0]?.on_behalf_of, 'user-1');
    assert.equal(body.data[0]?.actor_id, 'op-9');
  });

  test('keyset paging keeps the filters', async () => {
    const first = await page('action=agent.updated&limit=1');
    assert.deepEqual(seeded(first), ['c']);
    assert.ok(first.meta.next_before);
    const second = await page(`action=agent.updated&limit=1&before=${first.meta.next_before}`);
    assert.deepEqual(seeded(second), ['b']);
    assert.equal(second.meta.next_before, null);
  });

  test('hostile text is matched literally, never as a pattern or SQL', async () => {
    assert.deepEqual(seeded(await page(`actor_id=${encodeURIComponent("'; drop table audit_logs; --")}`)), [
      'e',
    ]);
    assert.deepEqual(seeded(await page('action=x%25_')), ['e']);
    assert.deepEqual(seeded(await page('action=x%25')), []);
    assert.deepEqual(seeded(await page('target_id=%25')), ['e']);
    assert.equal((await page('')).data.length >= 5, true);
  });

  test('bad filters are 422 in the envelope', async () => {
    for (const query of [
      'from=yesterday',
      'to=2026-11-02',
      `from=${DAY(3).toISOString()}&to=${DAY(3).toISOString()}`,
      `from=${DAY(4).toISOString()}&to=${DAY(3).toISOString()}`,
      `action=${'a'.repeat(101)}`,
      `actor_id=${'a'.repeat(65)}`,
      `target_id=${'a'.repeat(65)}`,
      'actor_id=%00',
      'limit=201',
      'limit=0',
    ]) {
      const res = await get(acme, query);
      assert.equal(res.statusCode, 422, `${query}: ${res.body}`);
      assert.equal(res.json().code, 'validation_failed', query);
    }
    assert.equal((await get(acme, `action=${'a'.repeat(100)}`)).statusCode, 200);
    assert.equal((await get(acme, `actor_id=${'a'.repeat(64)}`)).statusCode, 200);
  });
});
