// A knowledge-base article cited in a widget answer links to its public page with an absolute
// URL: PUBLIC_BASE_URL when set, else the scheme and host the visitor reached the service on
// (X-Forwarded-* only when TRUST_PROXY trusts them). A Host that is not a bare host stays out.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import { expectData } from './support/http.js';
import { indexAll, kbClient } from './support/kb.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, ORIGIN, parseSse, ZDoneFrame } from './support/widget.js';

const ARTICLE = {
  title: 'Returning a parcel',
  slug: 'returns',
  body_markdown: 'Send the parcel back with the **indigo pelican** label within thirty days of delivery.',
  is_published: true,
};
const QUESTION = 'Which label do I use to send a parcel back?';

/** A test app with a published KB article indexed for a widget agent. */
async function appWithArticle(env: Record<string, string>) {
  const t = await createTestApp({ env });
  const { tenant, agentId } = await createWidgetAgent(t);
  await kbClient(() => t).create(tenant, ARTICLE);
  await indexAll(t, agentId);
  return { t, agentId, path: `/kb/${tenant.workspace.slug}/returns` };
}

/** Asks through `POST /v1/widget/messages` with extra headers; returns the cited URLs. */
async function citedUrls(t: TestApp, agentId: string, headers: Record<string, string>) {
  const session = await initSession(t, agentId);
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/widget/messages',
    headers: {
      authorization: `Bearer ${session.token}`,
      origin: ORIGIN,
      'content-type': 'application/json',
      ...headers,
    },
    payload: JSON.stringify({ message: QUESTION }),
  });
  return expectData(res, 200, ZWidgetAnswer).citations.map((citation) => citation.url);
}

describe('KB citations without PUBLIC_BASE_URL', () => {
  let t: TestApp;
  let agentId: string;
  let path: string;
  before(async () => {
    ({ t, agentId, path } = await appWithArticle({}));
  });
  after(() => t.close());

  test('the URL is absolute on the host the visitor used, and stored so', async () => {
    assert.deepEqual(await citedUrls(t, agentId, { host: 'chat.example.org:8080' }), [
      `http://chat.example.org:8080${path}`,
    ]);
    const stored = await t.database.db
      .selectFrom('messages')
      .select('citations')
      .where('role', '=', 'assistant')
      .execute();
    assert.ok(
      stored.some((row) => JSON.stringify(row.citations).includes(`http://chat.example.org:8080${path}`)),
    );
  });

  test('the stream cites the same absolute URL', async () => {
    const session = await initSession(t, agentId);
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/widget/messages/stream',
      headers: {
        authorization: `Bearer ${session.token}`,
        origin: ORIGIN,
        host: 'help.example.org',
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ message: QUESTION }),
    });
    const done = ZDoneFrame.parse(parseSse(res.body).at(-1)?.data);
    assert.deepEqual(
      done.citations.map((citation) => citation.url),
      [`http://help.example.org${path}`],
    );
  });

  test('X-Forwarded-Proto/Host are ignored unless TRUST_PROXY trusts the proxy', async () => {
    assert.deepEqual(
      await citedUrls(t, agentId, {
        host: 'chat.example.org',
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'evil.example',
      }),
      [`http://chat.example.org${path}`],
    );
  });

  test('a Host header that is not a bare host leaves the path relative', async () => {
    for (const host of ['chat.example.org/"><script>', 'user@chat.example.org', 'chat.example.org?x=1']) {
      assert.deepEqual(await citedUrls(t, agentId, { host }), [path], host);
    }
  });
});

describe('KB citations behind a trusted proxy, and with PUBLIC_BASE_URL', () => {
  test('TRUST_PROXY: the forwarded scheme and host make the URL', async () => {
    const { t, agentId, path } = await appWithArticle({ TRUST_PROXY: 'true' });
    try {
      assert.deepEqual(
        await citedUrls(t, agentId, {
          host: '10.0.0.7:8080',
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'chat.example.com',
        }),
        [`https://chat.example.com${path}`],
      );
    } finally {
      await t.close();
    }
  });

  test('PUBLIC_BASE_URL wins over the request', async () => {
    const { t, agentId, path } = await appWithArticle({ PUBLIC_BASE_URL: 'https://help.example.com/' });
    try {
      assert.deepEqual(await citedUrls(t, agentId, { host: 'chat.example.org' }), [
        `https://help.example.com${path}`,
      ]);
    } finally {
      await t.close();
    }
  });
});
