import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import { signShopperToken } from '../src/security/shopper-token.js';
import { type FakeSite, sampleOrder, startFakeSite } from './support/fake-site.js';
import { expectData, signingSecretOf } from './support/http.js';
import { PLUGIN_VERSION, samplePost, wpPost } from './support/site-sync.js';
import { createTestApp, issueToken, type TestApp } from './support/test-app.js';
import { createWidgetAgent, initSession, widgetCall } from './support/widget.js';

const EMAIL_HASH = createHash('sha256').update('jo@example.com').digest('hex');

describe('order questions without a model (offline responder)', () => {
  let t: TestApp;
  let site: FakeSite;
  let agentId = '';

  before(async () => {
    site = await startFakeSite({
      secret: '',
      orders: {
        42: [
          sampleOrder(1, { number: 'A-100', tracking_url: 'https://track.example.com/p?id=(1)' }),
          sampleOrder(2, { number: 'A-101', status: 'completed', items: [] }),
        ],
        7: [sampleOrder(3, { number: 'B-200' })],
      },
    });
    t = await createTestApp({ env: { SAFE_URL_ALLOW: site.allowEntry } });
    const created = await createWidgetAgent(t);
    agentId = created.agentId;
    const issued = await issueToken(t, created.tenant, ['wp:integration']);
    site.secret = await signingSecretOf(t, issued.token);
    const sync = await wpPost(t, 'posts/sync', issued.token, {
      agent_id: agentId,
      site_url: site.siteUrl,
      plugin_version: PLUGIN_VERSION,
      posts: [samplePost(1)],
    });
    assert.equal(sync.statusCode, 200, sync.body);
  });
  after(async () => {
    await t.close();
    await site.close();
  });

  const ask = async (token: string, message: string) =>
    expectData(await widgetCall(t, 'POST', '/v1/widget/messages', token, { message }), 200, ZWidgetAnswer);

  const shopperSession = async (wpUserId: number) =>
    initSession(t, agentId, {
      shopper_token: await signShopperToken(site.secret, {
        wp_user_id: wpUserId,
        email_hash: EMAIL_HASH,
        iat: Math.floor(Date.now() / 1000),
      }),
    });

  test('a verified shopper gets their own orders, looked up with the user id of their token', async () => {
    const shopper = await shopperSession(42);
    assert.equal(shopper.shopper_verified, true);
    const answer = await ask(shopper.token, 'Where is my order?');
    assert.deepEqual(site.accepted.at(-1)?.body, { wp_user_id: 42, limit: 3 });
    assert.match(
      answer.text,
      /\*\*Order A-100\*\* \(2026-10-01\): processing — 2 × Trail Shoe; total 59\.80 EUR\./,
    );
    assert.match(answer.text, /\[Track the parcel\]\(https:\/\/track\.example\.com\/p\?id=%281%29\)/);
    assert.match(answer.text, /\*\*Order A-101\*\*.*completed; total/);
    assert.deepEqual(answer.blocks, [], 'an answered order question offers no human');
    assert.doesNotMatch(answer.text, /B-200/, "another user's orders are never shown");
    assert.ok(answer.message_id, 'the answer is stored');

    const one = await ask(shopper.token, 'Has order #A-101 shipped? My id is 7');
    assert.deepEqual(site.accepted.at(-1)?.body, { wp_user_id: 42, limit: 3, order_number: 'A-101' });
    assert.match(one.text, /A-101/);
    assert.doesNotMatch(one.text, /A-100|B-200/);

    const none = await ask(shopper.token, 'What about order #9999?');
    assert.equal(none.text, 'I could not find an order numbered 9999 on your account.');
  });

  test('an unverified visitor is asked to sign in and the site is never called', async () => {
    const anonymous = await initSession(t, agentId);
    const before = site.received();
    const answer = await ask(anonymous.token, 'Where is my order #A-100?');
    assert.match(answer.text, /only for signed-in customers/);
    assert.doesNotMatch(answer.text, /A-100|processing/);
    assert.deepEqual(
      answer.blocks.map((block) => block.type),
      ['escalation'],
      'a visitor left without their order is offered a human',
    );
    assert.equal(site.received(), before);
  });

  test('a shop that cannot be reached or has commerce off gets an honest reply', async () => {
    const shopper = await shopperSession(42);
    site.commerceActive = false;
    assert.equal(
      (await ask(shopper.token, 'Where is my parcel?')).text,
      'Order lookup is not available on this site.',
    );
    site.commerceActive = true;
    site.canned.set('orders/lookup', { status: 500, body: 'oops' });
    assert.match((await ask(shopper.token, 'track my order')).text, /could not reach the shop/);
    site.canned.delete('orders/lookup');
  });

  test('questions that are not about an order go to retrieval as before', async () => {
    const shopper = await shopperSession(42);
    const before = site.received();
    await ask(shopper.token, 'How long does shipping take?');
    assert.equal(site.received(), before);
  });
});
