import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { z } from 'zod';
import { bearer, expectData, expectError, expectValidation } from './support/http.js';
import {
  createAgent,
  createSite,
  queuedJobs,
  type Site,
  samplePost,
  siteSyncApp,
  snapshot,
  target,
} from './support/site-sync.js';
import { injectJson } from './support/test-app.js';

/** The handshake answer exactly as the contract table gives it: no field more, none less. */
const ZExactHandshake = z.strictObject({
  workspace: z.strictObject({ id: z.string(), name: z.string() }),
  agents: z.array(
    z.strictObject({
      id: z.string(),
      name: z.string(),
      site_type: z.string(),
      language_default: z.string().nullable(),
      is_published: z.boolean(),
    }),
  ),
  token: z.strictObject({
    id: z.string(),
    name: z.string(),
    abilities: z.array(z.string()),
    shopper_signing_secret: z.string().min(1),
  }),
  recommended_site_type: z.literal('ecommerce').nullable(),
  echo: z.strictObject({ site_url: z.string(), plugin_version: z.string() }),
});

describe('site integration: handshake', () => {
  const s = siteSyncApp({ env: {}, agent: { name: 'Shop bot' }, workspace: 'Acme Shop' });
  let secondAgent: string;
  let other: Site;

  before(async () => {
    secondAgent = await createAgent(s.t, s.site.tenant, {
      name: 'Support bot',
      site_type: 'ecommerce',
      language_default: 'pt-BR',
      is_published: true,
    });
    other = await createSite(s.t, { name: 'Foreign bot' }, 'Other Co');
  });

  function handshake(token: string, body: unknown) {
    return injectJson(s.t.app, 'POST', '/api/v1/wp/handshake', body, bearer(token));
  }

  test('answers exactly the contract shape, with only the token’s workspace’s agents', async () => {
    const res = await handshake(s.site.token, {
      site_url: 'https://Shop.Example.com/',
      plugin_version: '1.2.0',
      commerce_active: true,
      cms_version: '6.5',
    });
    const data = expectData(res, 200, ZExactHandshake);
    const token = await s.t.database.db
      .selectFrom('api_tokens')
      .select(['id', 'name', 'abilities', 'shopper_signing_secret'])
      .where('id', '=', s.site.tokenId)
      .executeTakeFirstOrThrow();
    const expectedAgents = [
      {
        id: s.site.agentId,
        name: 'Shop bot',
        site_type: 'generic',
        language_default: null,
        is_published: false,
      },
      {
        id: secondAgent,
        name: 'Support bot',
        site_type: 'ecommerce',
        language_default: 'pt-br',
        is_published: true,
      },
    ].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(
      { ...data, agents: [...data.agents].sort((a, b) => a.id.localeCompare(b.id)) },
      {
        workspace: { id: s.site.tenant.workspace.id, name: 'Acme Shop' },
        agents: expectedAgents,
        token: {
          id: s.site.tokenId,
          name: token.name,
          abilities: ['wp:integration'],
          shopper_signing_secret: token.shopper_signing_secret,
        },
        recommended_site_type: 'ecommerce',
        echo: { site_url: 'https://Shop.Example.com/', plugin_version: '1.2.0' },
      },
    );
    assert.ok(!JSON.stringify(data).includes(other.agentId), 'another workspace’s agent is not listed');
  });

  test('recommended_site_type is null unless commerce_active is true', async () => {
    for (const commerce of [false, undefined]) {
      const res = await handshake(s.site.token, {
        site_url: 'https://shop.example.com',
        plugin_version: '2.0.0',
        ...(commerce === undefined ? {} : { commerce_active: commerce }),
      });
      const data = expectData(res, 200, ZExactHandshake);
      assert.equal(data.recommended_site_type, null);
      assert.deepEqual(data.echo, { site_url: 'https://shop.example.com', plugin_version: '2.0.0' });
    }
  });

  test('a token of another workspace sees only that workspace and its agents', async () => {
    const res = await handshake(other.token, { site_url: 'https://other.example.com', plugin_version: '1' });
    const data = expectData(res, 200, ZExactHandshake);
    assert.deepEqual(data.workspace, { id: other.tenant.workspace.id, name: 'Other Co' });
    assert.deepEqual(
      data.agents.map((agent) => agent.id),
      [other.agentId],
    );
    assert.equal(data.token.id, other.tokenId);
  });

  test('writes only last_used_at: sources, documents, agents, audit unchanged; nothing queued', async () => {
    // Seed some synced content, so "unchanged" compares real rows.
    const synced = await s.post('posts/sync', {
      ...target(s.site.agentId),
      posts: [samplePost(1)],
    });
    assert.equal(synced.statusCode, 200, synced.body);
    await s.t.database.db
      .updateTable('api_tokens')
      .set({ last_used_at: null })
      .where('id', '=', s.site.tokenId)
      .execute();
    const before = await snapshot(s.t);
    assert.equal(before.jobs, 1);
    const res = await handshake(s.site.token, {
      site_url: 'https://brand-new.example.com',
      plugin_version: '9.9.9',
      commerce_active: true,
      cms_version: '6.6',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await snapshot(s.t), before);
    assert.equal(await queuedJobs(s.t), 1);
    const used = await s.t.database.db
      .selectFrom('api_tokens')
      .select('last_used_at')
      .where('id', '=', s.site.tokenId)
      .executeTakeFirstOrThrow();
    assert.ok(used.last_used_at instanceof Date, 'last_used_at was written');
    // Even for a site never seen, the handshake records no source.
    const sources = await s.t.database.db
      .selectFrom('sources')
      .select('site_url')
      .where('site_url', '=', 'https://brand-new.example.com')
      .execute();
    assert.deepEqual(sources, []);
  });

  test('writes last_used_at exactly once per handshake (none within the minute after), the answer unchanged', async () => {
    // Every write to the token's row is logged by a trigger, so a second writer would show.
    await sql`create table if not exists test_token_writes (token_id text not null, last_used_at timestamptz)`.execute(
      s.t.database.db,
    );
    await sql`create or replace function test_log_token_write() returns trigger language plpgsql as $$
      begin insert into test_token_writes values (new.id, new.last_used_at); return new; end $$`.execute(
      s.t.database.db,
    );
    await sql`create trigger test_token_writes after update on api_tokens
      for each row execute function test_log_token_write()`.execute(s.t.database.db);
    try {
      await s.t.database.db
        .updateTable('api_tokens')
        .set({ last_used_at: null })
        .where('id', '=', s.site.tokenId)
        .execute();
      await sql`delete from test_token_writes`.execute(s.t.database.db);
      const writes = async () =>
        (await sql<{ token_id: string }>`select token_id from test_token_writes`.execute(s.t.database.db))
          .rows;
      const body = { site_url: 'https://shop.example.com', plugin_version: '1.2.0', commerce_active: false };
      const first = expectData(await handshake(s.site.token, body), 200, ZExactHandshake);
      assert.deepEqual(await writes(), [{ token_id: s.site.tokenId }], 'one write: last_used_at');
      const stored = await s.t.database.db
        .selectFrom('api_tokens')
        .select('last_used_at')
        .where('id', '=', s.site.tokenId)
        .executeTakeFirstOrThrow();
      assert.ok(stored.last_used_at instanceof Date);
      // A second handshake within the minute writes nothing and answers the same.
      const second = expectData(await handshake(s.site.token, body), 200, ZExactHandshake);
      assert.deepEqual(second, first);
      assert.equal((await writes()).length, 1, 'no write within the minute');
    } finally {
      await sql`drop trigger test_token_writes on api_tokens`.execute(s.t.database.db);
    }
  });

  test('invalid handshake bodies → 422 naming the field; nothing written', async () => {
    const before = await snapshot(s.t);
    const cases: Array<[unknown, string]> = [
      [{ plugin_version: '1' }, 'site_url'],
      [{ site_url: 'not a url', plugin_version: '1' }, 'site_url'],
      [{ site_url: 'ftp://shop.example.com', plugin_version: '1' }, 'site_url'],
      [{ site_url: 'https://shop.example.com' }, 'plugin_version'],
      [
        { site_url: 'https://shop.example.com', plugin_version: '1', commerce_active: 'yes' },
        'commerce_active',
      ],
    ];
    for (const [body, field] of cases) expectValidation(await handshake(s.site.token, body), [field]);
    // Not signed, but still parsed strictly: broken JSON and prototype keys → 400.
    const raw = [
      '{"site_url":',
      '{"__proto__":{"x":1},"site_url":"https://a.example.com","plugin_version":"1"}',
    ];
    for (const payload of raw) {
      const res = await s.t.app.inject({
        method: 'POST',
        url: '/api/v1/wp/handshake',
        headers: { ...bearer(s.site.token), 'content-type': 'application/json' },
        payload,
      });
      expectError(res, 400, 'malformed_json');
    }
    assert.deepEqual(await snapshot(s.t), before);
  });
});
