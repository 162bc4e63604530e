// The shop's request handler on node:http. The SDK's plugin routes are mounted first (they read
// the raw body themselves, for the signature); everything else is the shop.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createShopperToken,
  nodeHandler,
  type SiteOrder,
  type SitePlugin,
  TRACKING_URL_META_KEYS,
} from '@service/site-plugin';
import type { Sql } from './database.js';
import type { SafeHtml } from './html.js';
import {
  contentSecurityPolicy,
  isSameOriginPost,
  parseCookies,
  readForm,
  SESSION_COOKIE,
  send,
  sessionCookie,
} from './http-util.js';
import { renderLayout } from './layout.js';
import {
  renderBlog,
  renderCart,
  renderHome,
  renderLogin,
  renderNotFound,
  renderOrders,
  renderPost,
  renderProduct,
} from './pages.js';
import { renderProductImage } from './product-image.js';
import * as q from './shop-queries.js';
import { type CartRef, findCustomerOrders } from './store.js';
import { SHOP_CSS } from './styles.js';

/** What the handler needs; side effects (clock, ids, secret, log) come in from outside. */
export type ShopServerDeps = {
  db: Sql;
  plugin: SitePlugin<CartRef>;
  /** The shop's origin, e.g. `http://localhost:4100`: permalinks and the same-origin check. */
  origin: string;
  serviceUrl: string;
  /** The agent the widget embeds; '' leaves the widget out. */
  agentId: () => string;
  /** The shopper_signing_secret, or null before the first handshake. */
  signingSecret: () => Promise<string | null>;
  now: () => Date;
  randomId: () => string;
  log: (line: string) => void;
};

type Context = { req: IncomingMessage; res: ServerResponse; session: q.Session | null; path: string };

/** The node:http request listener of the shop. */
export function createShopHandler(deps: ShopServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const pluginRoutes = nodeHandler(deps.plugin);
  const csp = contentSecurityPolicy(new URL(deps.serviceUrl).origin);
  const isSecure = deps.origin.startsWith('https:');

  const sendPage = async (
    ctx: Context,
    page: { title: string; body: SafeHtml; status?: number; isPersonal?: boolean },
  ) => {
    const customer = ctx.session?.customer ?? null;
    let shopperToken: string | null = null;
    if (customer) {
      try {
        const secret = await deps.signingSecret();
        if (secret)
          shopperToken = await createShopperToken(
            { wp_user_id: customer.id, email: customer.email },
            { secret, now: deps.now },
          );
      } catch (error) {
        deps.log(`shopper token not issued: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const viewer = customer ? { name: customer.name === '' ? customer.email : customer.name } : null;
    const body = renderLayout({
      title: page.title,
      viewer,
      body: page.body,
      embed: { serviceUrl: deps.serviceUrl, agentId: deps.agentId(), shopperToken },
    });
    // Logged-in pages carry the shopper token: never stored by any cache. Anonymous pages are the
    // same for everyone and carry no token, so a cache may keep them briefly.
    const cacheControl = customer || page.isPersonal ? 'private, no-store' : 'public, max-age=60';
    send(
      ctx.res,
      {
        status: page.status ?? 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': cacheControl,
          vary: 'Cookie',
        },
        body,
      },
      csp,
    );
  };

  const redirect = (ctx: Context, location: string, cookie?: string) => {
    const headers: Record<string, string> = { location, 'cache-control': 'no-store' };
    if (cookie !== undefined) headers['set-cookie'] = cookie;
    send(ctx.res, { status: 303, headers }, csp);
  };

  const plain = (ctx: Context, status: number, message: string) =>
    send(
      ctx.res,
      {
        status,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        body: `${message}\n`,
      },
      csp,
    );

  /** The visitor's session, created (anonymous) when they have none; `cookie` is set when new. */
  const ensureSession = async (ctx: Context): Promise<{ id: string; cookie?: string }> => {
    if (ctx.session) return { id: ctx.session.id };
    const id = deps.randomId();
    await q.createSession(deps.db, { id, customerId: null });
    ctx.session = { id, customer: null };
    return { id, cookie: sessionCookie(id, isSecure) };
  };

  const trackingUrl = (order: SiteOrder) =>
    TRACKING_URL_META_KEYS.map((key) => order.meta?.[key] ?? '').find((url) => /^https?:\/\//.test(url)) ??
    '';

  const get = async (ctx: Context): Promise<void> => {
    const { path } = ctx;
    if (path === '/assets/shop.css') {
      send(
        ctx.res,
        {
          status: 200,
          headers: { 'content-type': 'text/css; charset=utf-8', 'cache-control': 'public, max-age=3600' },
          body: SHOP_CSS,
        },
        csp,
      );
      return;
    }
    const image = /^\/images\/products\/([a-z0-9-]+)\.svg$/.exec(path);
    if (image?.[1]) {
      const product = await q.findProduct(deps.db, deps.origin, image[1]);
      if (!product) return plain(ctx, 404, 'Not found.');
      send(
        ctx.res,
        {
          status: 200,
          headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600' },
          body: renderProductImage(product),
        },
        csp,
      );
      return;
    }
    if (path === '/')
      return sendPage(ctx, {
        title: 'Coffee',
        body: renderHome(await q.listShopProducts(deps.db, deps.origin)),
      });
    const product = /^\/products\/([a-z0-9-]+)$/.exec(path);
    if (product?.[1]) {
      const found = await q.findProduct(deps.db, deps.origin, product[1]);
      if (found) return sendPage(ctx, { title: found.name, body: renderProduct(found) });
    }
    if (path === '/blog')
      return sendPage(ctx, {
        title: 'Journal',
        body: renderBlog(await q.listShopPosts(deps.db, deps.origin)),
      });
    const post = /^\/blog\/([a-z0-9-]+)$/.exec(path);
    if (post?.[1]) {
      const found = await q.findPost(deps.db, deps.origin, post[1]);
      if (found) return sendPage(ctx, { title: found.title, body: renderPost(found) });
    }
    if (path === '/cart') {
      const session = await ensureSession(ctx);
      if (session.cookie) ctx.res.setHeader('set-cookie', session.cookie);
      // The SDK's cart-load hook: a coupon the visitor applied in the chat (staged under the
      // widget's svc_conversation cookie) is applied to this cart now, once.
      const applied = await deps.plugin
        .applyStagedCoupon({ cookieHeader: ctx.req.headers.cookie, cart: { sessionId: session.id } })
        .catch((error: unknown) => {
          // The cart still renders; the staged code stays for the next load or expires.
          deps.log(`staged coupon not applied: ${error instanceof Error ? error.message : String(error)}`);
          return null;
        });
      const cart = await q.viewCart(deps.db, session.id, deps.now());
      return sendPage(ctx, { title: 'Cart', body: renderCart(cart, applied), isPersonal: true });
    }
    if (path === '/login')
      return sendPage(ctx, {
        title: 'Log in',
        body: renderLogin(await q.listCustomers(deps.db)),
        isPersonal: true,
      });
    if (path === '/account/orders') {
      const customer = ctx.session?.customer;
      if (!customer) return redirect(ctx, '/login');
      const orders = await findCustomerOrders(deps.db, {
        customerId: customer.id,
        limit: 50,
        siteUrl: deps.origin,
      });
      return sendPage(ctx, { title: 'My orders', body: renderOrders(customer, orders, trackingUrl) });
    }
    return sendPage(ctx, { title: 'Not found', body: renderNotFound(), status: 404 });
  };

  const post = async (ctx: Context): Promise<void> => {
    if (!isSameOriginPost(ctx.req, deps.origin)) {
      ctx.req.resume();
      return plain(ctx, 403, 'Cross-origin form posts are refused.');
    }
    const read = await readForm(ctx.req);
    if ('status' in read) return plain(ctx, read.status, read.message);
    const { form } = read;
    if (ctx.path === '/cart/add') {
      const productId = Number(form.get('product_id'));
      const qty = Number(form.get('qty') ?? '1');
      if (!Number.isSafeInteger(productId) || !Number.isInteger(qty) || qty < 1 || qty > 10)
        return plain(ctx, 400, 'Invalid product or quantity.');
      const session = await ensureSession(ctx);
      if (!(await q.addToCart(deps.db, session.id, productId, qty)))
        return plain(ctx, 400, 'That coffee is not available.');
      return redirect(ctx, '/cart', session.cookie);
    }
    if (ctx.path === '/login') {
      const customer = await q.findCustomer(deps.db, Number(form.get('customer_id')));
      if (!customer) return plain(ctx, 400, 'Unknown customer.');
      const id = deps.randomId();
      await q.createSession(deps.db, { id, customerId: customer.id, fromSession: ctx.session?.id ?? null });
      return redirect(ctx, '/account/orders', sessionCookie(id, isSecure));
    }
    if (ctx.path === '/logout') {
      if (ctx.session) await q.deleteSession(deps.db, ctx.session.id);
      return redirect(ctx, '/', sessionCookie('', isSecure));
    }
    return plain(ctx, 404, 'Not found.');
  };

  const shop = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', deps.origin).pathname;
    const sessionId = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
    const session = sessionId ? await q.findSession(deps.db, sessionId) : null;
    const ctx: Context = { req, res, session, path };
    if (req.method === 'GET' || req.method === 'HEAD') return get(ctx);
    if (req.method === 'POST') return post(ctx);
    req.resume();
    res.setHeader('allow', 'GET, HEAD, POST');
    return plain(ctx, 405, 'Method not allowed.');
  };

  return (req, res) => {
    pluginRoutes(req, res, () => {
      shop(req, res).catch((error: unknown) => {
        deps.log(
          `error on ${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        if (res.headersSent) res.destroy();
        else
          send(
            res,
            {
              status: 500,
              headers: { 'content-type': 'text/plain; charset=utf-8' },
              body: 'Something went wrong.\n',
            },
            csp,
          );
      });
    });
  };
}
