import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZAgent, ZApiToken, ZApiTokenCreated, ZKbArticle, ZSource } from '@service/contract';
import { z } from 'zod';
import { expectData } from './support/http.js';
import { type CountingServer, runFetchJob, sourceRow, startServer } from './support/sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';
import { createTestClock } from './support/test-clock.js';
import { createWidgetAgent, initSession, widgetCall } from './support/widget.js';

// The service has one clock (src/clock.ts), made at boot and handed to every service call. Pinned
// far from the real time, every "now" a service stores must be the pinned instant: a service that
// read the system clock instead would store today's date.

const START = new Date('2031-02-03T04:05:06.789Z');
const MINUTE = 60_000;

describe('the injected clock reaches what services store', () => {
  const clock = createTestClock(START);
  let site: CountingServer;
  let t: TestApp;
  let tenant: Tenant;
  before(async () => {
    site = await startServer();
    t = await createTestApp({ clock, env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}` } });
    tenant = await seedTenant(t);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  /** Moves the clock on and returns the instant it now reads. */
  const tick = (minutes = 1): Date => {
    clock.advance(minutes * MINUTE);
    return clock.now();
  };

  test("a revoked token's revoked_at is the clock's instant, stored and on the wire", async () => {
    const created = expectData(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/tokens',
        { name: 'ci', abilities: ['admin'] },
        tenant.auth,
      ),
      201,
      ZApiTokenCreated,
    );
    const at = tick();
    const revoked = expectData(
      await t.app.inject({
        method: 'DELETE',
        url: `/api/v1/admin/tokens/${created.id}`,
        headers: tenant.auth,
      }),
      200,
      ZApiToken,
    );
    assert.equal(revoked.revoked_at, at.toISOString());
    const row = await t.database.db
      .selectFrom('api_tokens')
      .select('revoked_at')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.revoked_at, at);
  });

  test("a KB article's published_at and updated_at follow the clock", async () => {
    const publishedAt = tick();
    const article = expectData(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/kb/articles',
        { title: 'Returns', body_markdown: 'Thirty days.', is_published: true },
        tenant.auth,
      ),
      201,
      ZKbArticle,
    );
    assert.equal(article.published_at, publishedAt.toISOString());
    const editedAt = tick(5);
    const edited = expectData(
      await injectJson(
        t.app,
        'PATCH',
        `/api/v1/admin/kb/articles/${article.id}`,
        { title: 'Refunds' },
        tenant.auth,
      ),
      200,
      ZKbArticle,
    );
    assert.equal(edited.updated_at, editedAt.toISOString());
    assert.equal(edited.published_at, publishedAt.toISOString(), 'an edit does not publish again');
  });

  test("an agent's updated_at, a lead's created_at and a claim's claimed_at are the clock's", async () => {
    const { agentId } = await createWidgetAgent(t, {}, tenant);
    const updatedAt = tick();
    const agent = expectData(
      await injectJson(t.app, 'PATCH', `/api/v1/admin/agents/${agentId}`, { name: 'Clockwork' }, tenant.auth),
      200,
      ZAgent,
    );
    assert.equal(agent.updated_at, updatedAt.toISOString());

    const session = await initSession(t, agentId);
    const capturedAt = tick();
    const lead = expectData(
      await widgetCall(t, 'POST', '/v1/widget/leads', session.token, { email: 'ada@example.com' }),
      201,
      z.object({ id: z.string() }),
    );
    const leadRow = await t.database.db
      .selectFrom('leads')
      .select('created_at')
      .where('id', '=', lead.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(leadRow.created_at, capturedAt);

    const claimedAt = tick();
    const claim = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/conversations/${session.conversation_id}/claim`,
      headers: tenant.auth,
    });
    assert.equal(claim.statusCode, 200, claim.body);
    const conversation = await t.database.db
      .selectFrom('conversations')
      .select('claimed_at')
      .where('id', '=', session.conversation_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(conversation.claimed_at, claimedAt);
  });

  test("a job handler gets the same clock: a fetched source's last_synced_at is the clock's", async () => {
    const { agentId } = await createWidgetAgent(t, {}, tenant);
    site.page.type = 'text/plain; charset=utf-8';
    site.page.body = 'Opening hours: nine to five.';
    const source = expectData(
      await injectJson(
        t.app,
        'POST',
        `/api/v1/admin/agents/${agentId}/sources`,
        { type: 'url', url: `http://127.0.0.1:${site.port}/hours.txt` },
        tenant.auth,
      ),
      201,
      ZSource,
    );
    const fetchedAt = tick();
    await runFetchJob(t, source.id);
    const row = await sourceRow(t, source.id);
    assert.deepEqual(row.last_synced_at, fetchedAt);
    assert.deepEqual(row.updated_at, fetchedAt);
  });
});
