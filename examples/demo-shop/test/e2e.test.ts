// The whole loop on one machine: the real service (app + job worker, on a cloned embedded
// database) and the demo shop (SDK routes, sync client, its own database), both on loopback.
// The service reaches the shop through SAFE_URL_ALLOW, exactly as a development setup would.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer, ZWidgetInitResponse } from '@service/contract';
import { sql } from 'kysely';
import { z } from 'zod';
import { createAgent } from '../../../apps/server/test/support/site-sync.js';
import {
  createTestApp,
  issueToken,
  seedTenant,
  type TestApp,
  workerServices,
} from '../../../apps/server/test/support/test-app.js';
import { eventually } from '../../../apps/widget/test/browser/support/service.js';
import { type DemoShop, startDemoShop } from '../src/index.js';
import { freePort } from './support/loopback.js';

const ZData = <T extends z.ZodType>(data: T) => z.object({ data });
const ZCouponApplied = z.object({ applied: z.boolean(), pending: z.boolean(), message: z.string() });

/** A browser's cookie jar for one site, just enough for the shop's session cookie. */
class CookieJar {
  private readonly cookies = new Map<string, string>();
  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair?.indexOf('=') ?? -1;
      if (!pair || eq <= 0) continue;
      const value = pair.slice(eq + 1);
      if (value === '') this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
  }
}

describe('end to end: the service and the demo shop on loopback', () => {
  let t: TestApp;
  let shop: DemoShop;
  let base = '';
  let agentId = '';
  const postsSyncCalls: Array<{ ok: boolean; firstId: number; lastId: number }> = [];
  let failPostsBatch: number | null = 2;

  before(async () => {
    const shopPort = await freePort();
    const shopOrigin = `http://127.0.0.1:${shopPort}`;
    t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${shopPort}` } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no service port');
    base = `http://127.0.0.1:${address.port}`;
    // A real worker in this process: indexing and lead pushes run as they would in the service.
    await t.queue.work(workerServices(t), { pollingIntervalSeconds: 0.5 });

    const tenant = await seedTenant(t, 'Northwind Coffee Roasters');
    agentId = await createAgent(t, tenant, {
      name: 'Northwind assistant',
      is_published: true,
      allowed_origins: [shopOrigin],
      widget_features: { leads: true, human: true, satisfaction: false },
    });
    const { token } = await issueToken(t, tenant, ['wp:integration']);

    // The shop's fetch, with one dropped connection on the second posts batch (a crash mid-sync).
    const shopFetch: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/api/v1/wp/posts/sync')) {
        const body = z
          .object({ posts: z.array(z.object({ wp_id: z.number() })) })
          .parse(JSON.parse(String(init?.body)));
        const call = {
          ok: true,
          firstId: body.posts[0]?.wp_id ?? 0,
          lastId: body.posts.at(-1)?.wp_id ?? 0,
        };
        postsSyncCalls.push(call);
        if (postsSyncCalls.length === failPostsBatch) {
          failPostsBatch = null;
          call.ok = false;
          throw new TypeError('fetch failed: connection reset (injected)');
        }
      }
      return fetch(input, init);
    };
    shop = await startDemoShop({
      serviceUrl: base,
      apiToken: token,
      agentId,
      port: shopPort,
      dataDir: null,
      seed: { posts: 120, products: 60 },
      syncOnStart: false,
      fetch: shopFetch,
      log: () => {},
    });
    assert.equal(shop.origin, shopOrigin);
  });

  after(async () => {
    await shop?.close();
    await t?.close();
  });

  const documentCount = async (kind: string) => {
    const row = await t.database.db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('agent_id', '=', agentId)
      .where('kind', '=', kind)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  const indexJobs = async () => {
    const { rows } = await sql<{
      n: string;
    }>`select count(*) as n from pgboss.job where name = 'index-document'`.execute(t.database.db);
    return Number(rows[0]?.n ?? 0);
  };

  test('handshake, then 120 posts in three batches (resumed once after a dropped connection) and 60 products', async () => {
    await assert.rejects(shop.syncNow(), /fetch failed|network|connection/i, 'the injected failure surfaces');
    assert.deepEqual(
      postsSyncCalls.map((call) => call.ok),
      [true, false],
    );
    const firstBatchEnd = postsSyncCalls[0]?.lastId ?? 0;
    assert.equal(await documentCount('post'), 50, 'the first batch was stored');

    const report = await shop.syncNow();
    assert.equal(report.posts.resumedAfter, firstBatchEnd, 'resumed after the last accepted batch');
    assert.equal(report.posts.batches, 2);
    assert.equal(report.posts.sent, 70);
    const accepted = postsSyncCalls.filter((call) => call.ok);
    assert.equal(accepted.length, 3, 'three batches reached the service');
    assert.equal(accepted[1]?.firstId, postsSyncCalls[1]?.firstId, 'the failed batch was sent again');
    assert.equal(report.products?.sent, 60);
    assert.equal(report.products?.batches, 2);
    assert.ok((report.coupons?.stored ?? 0) >= 2, 'coupons synced');
    assert.equal(await documentCount('post'), 120);
    assert.equal(await documentCount('product'), 60);
    const agent = await t.database.db
      .selectFrom('agents')
      .select('site_type')
      .where('id', '=', agentId)
      .executeTakeFirstOrThrow();
    assert.equal(agent.site_type, 'ecommerce', 'the first product made the agent ecommerce');

    // Everything gets indexed by the worker.
    const pending = await eventually(
      async () =>
        Number(
          (
            await t.database.db
              .selectFrom('documents')
              .select((eb) => eb.fn.countAll<string>().as('n'))
              .where('agent_id', '=', agentId)
              .where('index_status', '!=', 'indexed')
              .executeTakeFirstOrThrow()
          ).n,
        ),
      (n) => n === 0,
      120_000,
    );
    assert.equal(pending, 0, 'every document was indexed');
  });

  test('an unchanged re-sync queues nothing', async () => {
    const jobsBefore = await indexJobs();
    const report = await shop.syncNow();
    assert.equal(report.posts.queued, 0);
    assert.equal(report.posts.skipped_unchanged, 120);
    assert.equal(report.products?.queued, 0);
    assert.equal(report.products?.skipped_unchanged, 60);
    assert.equal(await indexJobs(), jobsBefore, 'no index job was created');
  });

  // --- The visitor's side: the widget API from the shop's origin, the shop's pages ---------

  const widget = async (path: string, token: string | null, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: shop.origin,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const init = async (extra: Record<string, unknown> = {}) => {
    const answer = await widget('/v1/widget/init', null, {
      agent_id: agentId,
      anon_id: `anon_${Math.random().toString(36).slice(2)}`,
      ...extra,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return ZData(ZWidgetInitResponse).parse(answer.body).data;
  };
  const ask = async (token: string, message: string) => {
    const answer = await widget('/v1/widget/messages', token, { message });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return ZData(ZWidgetAnswer).parse(answer.body).data;
  };
  const shopGet = async (path: string, jar: CookieJar) => {
    const response = await fetch(`${shop.url}${path}`, {
      headers: { cookie: jar.header() },
      redirect: 'manual',
    });
    jar.take(response);
    return { response, html: await response.text() };
  };
  const shopPost = async (path: string, jar: CookieJar, form: Record<string, string>) => {
    const response = await fetch(`${shop.url}${path}`, {
      method: 'POST',
      headers: {
        cookie: jar.header(),
        origin: shop.origin,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    jar.take(response);
    assert.equal(response.status, 303, await response.text());
  };
  /** Logs a browser in as the n-th demo customer; returns its jar and the order numbers on its account page. */
  const logIn = async (index: number) => {
    const jar = new CookieJar();
    const { html } = await shopGet('/login', jar);
    const ids = [...html.matchAll(/name="customer_id" value="(\d+)"/g)].map((match) => match[1] ?? '');
    assert.ok(ids.length >= 2, 'the login page lists the demo customers');
    await shopPost('/login', jar, { customer_id: ids[index] ?? '' });
    const account = await shopGet('/account/orders', jar);
    const numbers = [...account.html.matchAll(/<strong>Order (NW-\d+)<\/strong>/g)].map((m) => m[1] ?? '');
    assert.ok(numbers.length >= 1, 'the customer has orders');
    return { jar, html: account.html, numbers };
  };

  test('a question about a product is answered with its product card, and its coupon is applied on the next cart load', async () => {
    const session = await init();
    assert.equal(session.agent.features.coupons, true, 'a commerce site with synced coupons offers coupons');
    const answer = await ask(session.token, 'Tell me about the Ethiopia Yirgacheffe coffee');
    const cards = answer.blocks.filter((block) => block.type === 'product');
    assert.ok(cards.length >= 1, JSON.stringify(answer));
    assert.match(JSON.stringify(cards[0]?.payload), /Yirgacheffe/);
    assert.match(
      JSON.stringify(cards[0]?.payload),
      new RegExp(`${shop.url}/products/`),
      'the card links to the shop',
    );

    // The visitor's browser on the shop: a cart, and the widget's first-party conversation cookie.
    const jar = new CookieJar();
    await shopGet('/', jar);
    const productId = /name="product_id" value="(\d+)"/.exec((await shopGet('/', jar)).html)?.[1] ?? '';
    await shopPost('/cart/add', jar, { product_id: productId, qty: '2' });
    jar.set('svc_conversation', session.conversation_id);

    const apply = await widget('/api/v1/widget/coupon/apply', session.token, { code: 'WELCOME10' });
    assert.equal(apply.status, 200, JSON.stringify(apply.body));
    assert.deepEqual(
      { applied: ZData(ZCouponApplied).parse(apply.body).data.applied, pending: true },
      { applied: false, pending: true },
    );
    const refused = await widget('/api/v1/widget/coupon/apply', session.token, { code: 'NOT-A-CODE' });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));

    const cart = await shopGet('/cart', jar);
    assert.match(
      cart.html,
      /data-testid="coupon-applied-from-chat">Coupon WELCOME10 from the chat was applied/,
    );
    assert.match(cart.html, /data-testid="cart-coupon"[^>]*>.*WELCOME10/s);
    const again = await shopGet('/cart', jar);
    assert.doesNotMatch(again.html, /coupon-applied-from-chat/, 'a staged code is applied once');
    assert.match(again.html, /WELCOME10/, 'and stays on the cart');
  });

  test('a verified shopper asking "where is my order" gets their own orders; an unverified visitor does not', async () => {
    const customer = await logIn(0);
    const other = await logIn(1);
    const shopperToken = /data-shopper-token="([^"]+)"/.exec(customer.html)?.[1];
    assert.ok(shopperToken, 'a logged-in page carries a shopper token');
    const verified = await init({ shopper_token: shopperToken });
    assert.equal(verified.shopper_verified, true);
    const answer = await ask(verified.token, 'Where is my order?');
    for (const number of customer.numbers.slice(0, 3)) assert.match(answer.text, new RegExp(number));
    for (const number of other.numbers) assert.doesNotMatch(answer.text, new RegExp(number));

    const anonymousPage = await shopGet('/', new CookieJar());
    assert.doesNotMatch(anonymousPage.html, /data-shopper-token/, 'an anonymous page carries none');
    const anonymous = await init();
    assert.equal(anonymous.shopper_verified, false);
    const refused = await ask(anonymous.token, `Where is my order ${customer.numbers[0]}?`);
    assert.doesNotMatch(refused.text, new RegExp(`Order ${customer.numbers[0]}`));
    assert.match(refused.text, /signed-in/);
  });

  test('a lead captured in the chat appears as a customer in the shop', async () => {
    const session = await init();
    const created = await widget('/v1/widget/leads', session.token, {
      email: 'Rosa.Lind@Example.com',
      name: 'Rosa Lind',
      phone: '+33 4 72 00 00 00',
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const customers = await eventually(
      () => shop.customers(),
      (list) => list.some((row) => row.email.toLowerCase() === 'rosa.lind@example.com'),
      30_000,
    );
    const customer = customers.find((row) => row.email.toLowerCase() === 'rosa.lind@example.com');
    assert.ok(customer, 'the lead was pushed to the shop');
    assert.equal(customer.name, 'Rosa Lind');
    assert.equal(customer.conversation_id, session.conversation_id);
    const lead = await t.database.db
      .selectFrom('leads')
      .select('id')
      .where('conversation_id', '=', session.conversation_id)
      .executeTakeFirstOrThrow();
    assert.equal(customer.service_lead_id, lead.id);
  });
});
