// The demo shop through its real HTTP port: pages, shopper identity, the SDK's plugin routes
// signed like the service signs them, staged coupons, security headers and the start-up sync
// against a fake service (injected fetch; nothing leaves loopback).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { emailHash } from '@service/site-plugin';
import { verifyShopperToken } from '../../../apps/server/src/security/shopper-token.js';
import { type DemoShop, startDemoShop } from '../src/index.js';
import {
  at,
  createFakeService,
  now,
  SECRET,
  SERVICE_URL,
  sessionCookieOf,
  shopClient,
} from './support/harness.js';

const CSP = `default-src 'self'; script-src 'self' ${SERVICE_URL}; connect-src ${SERVICE_URL}; style-src 'self'; img-src 'self' data: https:`;

const service = createFakeService();
let shop: DemoShop;
const { callPlugin, get, postForm } = shopClient(() => shop);

before(async () => {
  shop = await startDemoShop({
    serviceUrl: SERVICE_URL,
    apiToken: 'svc_test_token',
    agentId: 'agt_test',
    port: 0,
    dataDir: null,
    syncOnStart: false,
    signingSecret: SECRET,
    fetch: service.fetch,
    now,
    log: () => {},
  });
});

after(async () => {
  await shop.close();
});

async function logIn(customerId: number): Promise<string> {
  const res = await postForm('/login', { customer_id: String(customerId) });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/account/orders');
  return sessionCookieOf(res);
}

describe('pages', () => {
  it('renders the catalogue, a product, the blog and a post, with the widget tag', async () => {
    const home = await get('/');
    assert.equal(home.res.status, 200);
    assert.match(home.body, /House Blend Omni Roast 250 g/);
    assert.match(home.body, /Ethiopia Yirgacheffe Filter Roast 250 g/);
    assert.match(home.body, /Decaf Colombia Omni Roast 250 g/);
    assert.ok(
      home.body.includes(
        `<script src="${SERVICE_URL}/widget/widget.js" data-agent-id="agt_test" async></script>`,
      ),
    );
    const product = await get('/products/house-blend-omni-roast-250-g');
    assert.equal(product.res.status, 200);
    assert.match(product.body, /chocolate, hazelnut and caramel|chocolate up front/);
    assert.match(product.body, /SKU NW-HB-M-250/);
    const blog = await get('/blog');
    assert.match(blog.body, /How to brew with a V60/);
    const post = await get('/blog/how-to-brew-with-a-v60');
    assert.equal(post.res.status, 200);
    assert.match(post.body, /<h2>What you need<\/h2>/);
    assert.equal((await get('/products/no-such-coffee')).res.status, 404);
    const css = await get('/assets/shop.css');
    assert.equal(css.res.headers.get('content-type'), 'text/css; charset=utf-8');
  });

  it('escapes what customers and the service sent', async () => {
    const pushed = await callPlugin('leads', {
      email: 'mallory@example.com',
      name: 'Mallory <script>alert("x")</script>',
      phone: '',
      conversation_id: 'conv_escape',
      service_lead_id: 'lead_escape',
    });
    assert.equal(pushed.status, 200);
    const login = await get('/login');
    assert.ok(login.body.includes('Mallory &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.ok(!login.body.includes('<script>alert'));
  });

  it('sends the strict CSP and no inline script on every page', async () => {
    for (const path of ['/', '/blog', '/cart', '/login', '/nowhere']) {
      const page = await get(path);
      assert.equal(page.res.headers.get('content-security-policy'), CSP, path);
      assert.equal(page.res.headers.get('x-content-type-options'), 'nosniff');
      assert.doesNotMatch(page.body, /<script(?![^>]*\ssrc=)/, `${path} has an inline script`);
      assert.doesNotMatch(page.body, /<style|\sstyle=/, `${path} has inline styles`);
    }
  });
});

describe('shopper identity', () => {
  it('gives a logged-in page a verifiable shopper token, uncached; an anonymous page neither', async () => {
    const anonymous = await get('/');
    assert.ok(!anonymous.body.includes('data-shopper-token'));
    assert.equal(anonymous.res.headers.get('cache-control'), 'public, max-age=60');

    const cookie = await logIn(1);
    const page = await get('/', cookie);
    assert.equal(page.res.headers.get('cache-control'), 'private, no-store');
    assert.match(page.body, /Log out \(Camille Martin\)/);
    const token = /data-shopper-token="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(token, 'the page carries a shopper token');

    const claims = await verifyShopperToken(token, [SECRET], now());
    assert.equal(claims?.wp_user_id, 1);
    assert.equal(claims?.email_hash, await emailHash('camille.martin@example.com'));
    assert.equal(await verifyShopperToken(token, ['another-secret'], now()), null);

    const orders = await get('/account/orders', cookie);
    assert.match(orders.body, /Order NW-1001/);
    assert.doesNotMatch(orders.body, /NW-1002/);

    const out = await postForm('/logout', {}, { cookie });
    assert.equal(out.status, 303);
    assert.ok(!(await get('/', cookie)).body.includes('data-shopper-token'));
  });
});

describe('plugin routes', () => {
  it('answers orders/lookup with only that customer’s orders and their tracking URL', async () => {
    const unsigned = await callPlugin('orders/lookup', { wp_user_id: 1, limit: 5 }, { sign: false });
    assert.equal(unsigned.status, 401);
    assert.equal(at(unsigned.json, 'error', 'code'), 'missing_signature');

    const { status, json } = await callPlugin('orders/lookup', { wp_user_id: 1, limit: 5 });
    assert.equal(status, 200);
    const orders = at(json, 'data', 'orders');
    assert.ok(Array.isArray(orders));
    assert.deepEqual(
      orders.map((order) => at(order, 'number')),
      ['NW-1004', 'NW-1001'],
    );
    assert.equal(at(json, 'data', 'count'), 2);
    const first = orders.find((order) => at(order, 'number') === 'NW-1001');
    assert.equal(at(first, 'tracking_url'), 'https://track.example.com/parcel/6A19283746501');
    assert.equal(at(first, 'order_url'), `${shop.url}/account/orders#NW-1001`);
    assert.equal(at(first, 'items', 0, 'sku'), 'NW-HB-M-250');

    const one = await callPlugin('orders/lookup', { wp_user_id: 1, limit: 5, order_number: 'NW-1004' });
    assert.deepEqual(at(one.json, 'data', 'count'), 1);
    const other = await callPlugin('orders/lookup', { wp_user_id: 1, limit: 5, order_number: 'NW-1002' });
    assert.equal(at(other.json, 'data', 'count'), 0, 'another customer’s order number finds nothing');
  });

  it('creates a customer from a lead, then fills in what it lacked (same e-mail in any case), never overwriting', async () => {
    const created = await callPlugin('leads', {
      email: 'Lea.Dubois@Example.com',
      name: 'Léa Dubois',
      phone: '',
      conversation_id: 'conv_lead_1',
      service_lead_id: 'lead_1',
    });
    assert.equal(created.status, 200);
    const userId = at(created.json, 'data', 'user_id');
    assert.equal(typeof userId, 'number');

    const updated = await callPlugin('leads', {
      email: 'lea.dubois@example.com',
      name: '',
      phone: '+33 7 00 00 00 00',
      conversation_id: 'conv_lead_2',
      service_lead_id: 'lead_2',
    });
    assert.equal(at(updated.json, 'data', 'user_id'), userId);
    const customers = (await shop.customers()).filter(
      (c) => c.email.toLowerCase() === 'lea.dubois@example.com',
    );
    assert.deepEqual(customers, [
      {
        id: userId,
        email: 'Lea.Dubois@Example.com',
        name: 'Léa Dubois',
        phone: '+33 7 00 00 00 00',
        service_lead_id: 'lead_2',
        conversation_id: 'conv_lead_2',
      },
    ]);

    // A lead proves nothing about the address: it never overwrites what the shop knows.
    await callPlugin('leads', {
      email: 'LEA.DUBOIS@example.com',
      name: 'Mallory',
      phone: '+1 555 0100',
      conversation_id: 'conv_lead_3',
      service_lead_id: 'lead_3',
    });
    const after = (await shop.customers()).find((c) => c.id === userId);
    assert.deepEqual([after?.name, after?.phone], ['Léa Dubois', '+33 7 00 00 00 00']);
  });

  it('stages a coupon from the chat and applies it on the next cart load, once', async () => {
    assert.equal(
      at(
        (await callPlugin('cart/coupon', { code: 'NOPE', conversation_id: 'conv_cart' })).json,
        'error',
        'code',
      ),
      'invalid_coupon',
    );
    assert.equal(
      at(
        (await callPlugin('cart/coupon', { code: 'SUMMER24', conversation_id: 'conv_cart' })).json,
        'error',
        'code',
      ),
      'invalid_coupon',
      'an expired coupon does not exist for the chat',
    );
    const staged = await callPlugin('cart/coupon', { code: 'WELCOME10', conversation_id: 'conv_cart' });
    assert.equal(staged.status, 200);
    assert.equal(at(staged.json, 'data', 'pending'), true);
    assert.equal(at(staged.json, 'data', 'applied'), false);

    const houseBlend = /name="product_id" value="(\d+)"/.exec((await get('/')).body)?.[1];
    assert.ok(houseBlend);
    const added = await postForm('/cart/add', { product_id: houseBlend, qty: '2' });
    assert.equal(added.status, 303);
    const session = sessionCookieOf(added);
    const cookie = `${session}; svc_conversation=conv_cart`;

    const first = await get('/cart', cookie);
    assert.equal(first.res.headers.get('cache-control'), 'private, no-store');
    assert.match(first.body, /Coupon WELCOME10 from the chat was applied/);
    assert.match(first.body, /<strong>WELCOME10<\/strong>/);
    assert.match(first.body, /−€1\.78/, '10% of 2 × €8.90');
    assert.match(first.body, /data-testid="cart-total">€20\.92</, '17.80 − 1.78 + 4.90 shipping');

    const second = await get('/cart', cookie);
    assert.doesNotMatch(second.body, /from the chat was applied/, 'the staged code is gone');
    assert.match(second.body, /<strong>WELCOME10<\/strong>/, 'the coupon stays on the cart');
  });
});

describe('form posts', () => {
  it('refuses a cross-origin POST and an oversized form', async () => {
    const houseBlend = /name="product_id" value="(\d+)"/.exec((await get('/')).body)?.[1] ?? '1';
    const crossSite = await postForm(
      '/cart/add',
      { product_id: houseBlend, qty: '1' },
      { origin: 'https://evil.example' },
    );
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.headers.get('set-cookie'), null, 'no session was created');
    const login = await postForm('/login', { customer_id: '1' }, { origin: 'null' });
    assert.equal(login.status, 403);
    const big = await postForm('/cart/add', { product_id: houseBlend, qty: '1', pad: 'x'.repeat(5000) });
    assert.equal(big.status, 413);
  });
});

describe('sync', () => {
  it('explains a failed handshake, then pushes posts, products and coupons', async () => {
    service.state.mode = 'down';
    await assert.rejects(
      shop.syncNow(),
      /could not connect to the service at http:\/\/127\.0\.0\.1:9\. Is it running\? Start it with `npm start`/,
    );
    service.state.mode = 'unauthorized';
    await assert.rejects(shop.syncNow(), /It refused the API token: check SERVICE_API_TOKEN/);

    service.state.mode = 'ok';
    const report = await shop.syncNow();
    assert.equal(shop.agentId, 'agt_test');
    assert.equal(report.posts.sent, 20);
    assert.equal(report.products?.sent, 12);
    assert.equal(report.coupons?.stored, 2, 'WELCOME10 and FREESHIP; the expired one is not offered');
    assert.deepEqual(
      service.state.calls.map((call) => call.path),
      [
        '/api/v1/wp/handshake',
        '/api/v1/wp/posts/sync',
        '/api/v1/wp/products/sync',
        '/api/v1/wp/coupons/sync',
      ],
    );
    assert.equal((await shop.sync.storedHandshake())?.workspace.id, 'ws_1');
  });
});
