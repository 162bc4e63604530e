import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZKbSettings } from '@service/contract';
import { KB_CSS_HASH } from '../src/kb/kb-style.js';
import { expectData } from './support/http.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

const BASE = 'https://help.example.com';
const ARTICLES = '/api/v1/admin/kb/articles';

/** The `content` of `<meta {attribute}="{key}">` in `html`, or undefined. */
function metaOf(html: string, attribute: 'name' | 'property', key: string): string | undefined {
  return new RegExp(`<meta ${attribute}="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)">`).exec(
    html,
  )?.[1];
}

describe('public KB pages: meta tags, sections, search, previous/next, sitemap, look', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  const create = (tenant: Tenant, body: Record<string, unknown>) =>
    injectJson(t.app, 'POST', ARTICLES, { is_published: true, ...body }, tenant.auth).then((res) => {
      assert.equal(res.statusCode, 201, res.body);
    });
  const settings = (tenant: Tenant, body: unknown) =>
    injectJson(t.app, 'PATCH', '/api/v1/admin/kb/settings', body, tenant.auth).then((res) =>
      expectData(res, 200, ZKbSettings),
    );
  const get = (url: string) => t.app.inject({ url });

  before(async () => {
    t = await createTestApp({ env: { PUBLIC_BASE_URL: BASE } });
    acme = await seedTenant(t, 'Acme Pages');
    other = await seedTenant(t, 'Other Pages');
    await create(acme, {
      title: 'Shipping times',
      slug: 'shipping',
      category: 'Orders',
      body_markdown:
        '# Shipping\n\nWe **ship** every parcel within two days. Tracking links arrive by email.',
    });
    await create(acme, {
      title: 'Returns',
      slug: 'returns',
      category: 'Orders',
      body_markdown: 'Unopened bags may be returned within 30 days.',
    });
    await create(acme, { title: 'Opening hours', slug: 'hours', body_markdown: 'Open Tuesday to Saturday.' });
    await create(acme, {
      title: 'Passwords',
      slug: 'passwords',
      category: 'Account',
      body_markdown: 'Reset a forgotten password from the sign-in page.',
    });
    await create(acme, {
      title: 'Draft shipping secrets',
      slug: 'draft',
      is_published: false,
      body_markdown: 'ship ship ship',
    });
    await create(other, { title: 'Their shipping', slug: 'theirs', body_markdown: 'We ship slowly.' });
  });
  after(() => t.close());

  test('the home: title, description, canonical and Open Graph tags, a section per category', async () => {
    const res = await get(`/kb/${acme.workspace.slug}`);
    assert.equal(res.statusCode, 200);
    const html = res.body;
    assert.match(html, /<title>Acme Pages help centre<\/title>/);
    assert.ok(metaOf(html, 'name', 'description'));
    const home = `${BASE}/kb/${acme.workspace.slug}`;
    assert.match(html, new RegExp(`<link rel="canonical" href="${home}">`));
    assert.equal(metaOf(html, 'property', 'og:url'), home);
    assert.equal(metaOf(html, 'property', 'og:type'), 'website');
    assert.equal(metaOf(html, 'property', 'og:title'), 'Acme Pages help centre');
    assert.ok(metaOf(html, 'property', 'og:description'));
    assert.match(html, new RegExp(`<link rel="stylesheet" href="/kb-assets/kb\\.css\\?v=${KB_CSS_HASH}">`));
    // Sections: named categories A to Z, then the general one; titles A to Z within each.
    const headings = [...html.matchAll(/<h2 id="section-\d+">([^<]*)<\/h2>/g)].map((m) => m[1]);
    assert.deepEqual(headings, ['Account', 'Orders', 'More articles']);
    const links = [...html.matchAll(/<li><a href="\/kb\/[^/]+\/([a-z-]+)">/g)].map((m) => m[1]);
    assert.deepEqual(links, ['passwords', 'returns', 'shipping', 'hours']);
    assert.ok(!html.includes('/draft"') && !html.includes('/theirs"'));
    // The search box posts to this same page with ?q=.
    assert.match(
      html,
      new RegExp(`<form class="search" role="search" method="get" action="/kb/${acme.workspace.slug}">`),
    );
  });

  test('an article: meta description from its text, canonical, breadcrumbs with its category, previous/next', async () => {
    const res = await get(`/kb/${acme.workspace.slug}/returns`);
    assert.equal(res.statusCode, 200);
    const html = res.body;
    const url = `${BASE}/kb/${acme.workspace.slug}/returns`;
    assert.match(html, /<title>Returns · Acme Pages help centre<\/title>/);
    assert.equal(metaOf(html, 'name', 'description'), 'Unopened bags may be returned within 30 days.');
    assert.match(html, new RegExp(`<link rel="canonical" href="${url}">`));
    assert.equal(metaOf(html, 'property', 'og:type'), 'article');
    assert.equal(metaOf(html, 'property', 'og:url'), url);
    const crumbs = /<nav class="breadcrumbs" aria-label="Breadcrumb">([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '';
    assert.match(crumbs, new RegExp(`<a href="/kb/${acme.workspace.slug}">Acme Pages help centre</a>`));
    assert.match(crumbs, /<li>Orders<\/li>/);
    assert.match(crumbs, /<span aria-current="page">Returns<\/span>/);
    assert.match(html, /<a class="previous" rel="prev" href="\/kb\/[^/]+\/passwords">/);
    assert.match(html, /<a class="next" rel="next" href="\/kb\/[^/]+\/shipping">/);
    // The first article in reading order has no previous, the last no next.
    assert.doesNotMatch((await get(`/kb/${acme.workspace.slug}/passwords`)).body, /rel="prev"/);
    const last = (await get(`/kb/${acme.workspace.slug}/hours`)).body;
    assert.doesNotMatch(last, /rel="next"/);
    assert.match(last, /<nav class="breadcrumbs"[\s\S]*?<li><span aria-current="page">Opening hours/);
  });

  test('search finds published articles of this workspace only, by stem, by partial title, best first', async () => {
    const res = await get(`/kb/${acme.workspace.slug}?q=shipped`);
    assert.equal(res.statusCode, 200);
    assert.equal(metaOf(res.body, 'name', 'robots'), 'noindex');
    const found = [...res.body.matchAll(/<h2><a href="\/kb\/[^/]+\/([a-z-]+)">/g)].map((m) => m[1]);
    assert.deepEqual(found, ['shipping']);
    assert.match(res.body, /<mark>ship<\/mark>/i);
    assert.match(res.body, /value="shipped"/);
    const partial = await get(`/kb/${acme.workspace.slug}?q=${encodeURIComponent('passw')}`);
    assert.match(partial.body, /\/passwords">Passwords<\/a>/);
    const none = await get(`/kb/${acme.workspace.slug}?q=${encodeURIComponent('teapot')}`);
    assert.match(none.body, /No article matches/);
    // LIKE wildcards are literal; an empty query is the home.
    assert.match((await get(`/kb/${acme.workspace.slug}?q=%25`)).body, /No article matches/);
    assert.match((await get(`/kb/${acme.workspace.slug}?q=+`)).body, /<div class="sections">/);
    // Another workspace's search never shows this one's articles, nor drafts.
    const theirs = await get(`/kb/${other.workspace.slug}?q=ship`);
    const theirFound = [...theirs.body.matchAll(/<h2><a href="\/kb\/[^/]+\/([a-z-]+)">/g)].map((m) => m[1]);
    assert.deepEqual(theirFound, ['theirs']);
  });

  test('hostile queries stay escaped text; an over-long query is cut, not refused', async () => {
    const hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
    const res = await get(`/kb/${acme.workspace.slug}?q=${encodeURIComponent(hostile)}`);
    assert.equal(res.statusCode, 200);
    assert.doesNotMatch(res.body, /<script>alert|<img src=x/);
    assert.match(res.body, /&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    // A query word that is part of a character reference never breaks the escaped snippet.
    const amp = await get(`/kb/${acme.workspace.slug}?q=${encodeURIComponent('amp quot ship')}`);
    assert.doesNotMatch(amp.body, /&<mark>|&#<mark>/);
    const long = await get(`/kb/${acme.workspace.slug}?q=${'ship '.repeat(100)}`);
    assert.equal(long.statusCode, 200);
    assert.match(long.body, /\/shipping">/);
  });

  test('the sitemap lists the home and published articles with absolute URLs; unknown workspace 404', async () => {
    const res = await get(`/kb/${acme.workspace.slug}/sitemap.xml`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/xml; charset=utf-8');
    assert.match(
      res.body,
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/,
    );
    const locs = [...res.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]).sort();
    const home = `${BASE}/kb/${acme.workspace.slug}`;
    assert.deepEqual(
      locs,
      [home, ...['hours', 'passwords', 'returns', 'shipping'].map((s) => `${home}/${s}`)].sort(),
    );
    assert.match(res.body, /<lastmod>\d{4}-\d\d-\d\dT[^<]+Z<\/lastmod>/);
    assert.equal((await get('/kb/no-such-workspace/sitemap.xml')).statusCode, 404);
  });

  test("the workspace's title, logo and colour show; hostile text in the title stays escaped", async () => {
    await settings(acme, {
      title: 'Acme <script>alert(1)</script> "Help"',
      logo_url: 'https://cdn.example.com/logo.svg',
      color: '#ffcc00',
    });
    const html = (await get(`/kb/${acme.workspace.slug}/returns`)).body;
    assert.doesNotMatch(html, /<script>alert/);
    assert.match(html, /<span>Acme &lt;script&gt;alert\(1\)&lt;\/script&gt; &quot;Help&quot;<\/span>/);
    assert.match(html, /<img src="https:\/\/cdn\.example\.com\/logo\.svg" alt="">/);
    assert.equal(metaOf(html, 'property', 'og:image'), 'https://cdn.example.com/logo.svg');
    assert.match(
      html,
      new RegExp(`<link rel="stylesheet" href="/kb/${acme.workspace.slug}/theme\\.css\\?v=ffcc00">`),
    );
    const theme = await get(`/kb/${acme.workspace.slug}/theme.css?v=ffcc00`);
    assert.equal(theme.statusCode, 200);
    assert.equal(theme.headers['content-type'], 'text/css; charset=utf-8');
    // A light yellow: black text on it, and links darkened to be readable on white.
    assert.match(theme.body, /--brand:#ffcc00;--on-brand:#000000;--link:#([0-9a-f]{6})/);
    assert.notEqual(/--link:#([0-9a-f]{6})/.exec(theme.body)?.[1], 'ffcc00');
    // A same-origin logo gets an absolute og:image.
    await settings(acme, { logo_url: '/files/logo.png', color: null, title: '' });
    const plain = (await get(`/kb/${acme.workspace.slug}`)).body;
    assert.equal(metaOf(plain, 'property', 'og:image'), `${BASE}/files/logo.png`);
    assert.doesNotMatch(plain, /theme\.css/);
    assert.equal((await get(`/kb/${acme.workspace.slug}/theme.css`)).statusCode, 404);
  });

  test('the widget is embedded from this origin when the workspace names a published agent', async () => {
    const created = await injectJson(t.app, 'POST', '/api/v1/admin/agents', { name: 'KB helper' }, acme.auth);
    const agentId = String(created.json().data.id);
    await settings(acme, { widget_agent_id: agentId });
    // Not published yet: no script.
    assert.doesNotMatch((await get(`/kb/${acme.workspace.slug}`)).body, /<script/);
    const published = await injectJson(
      t.app,
      'PATCH',
      `/api/v1/admin/agents/${agentId}`,
      { is_published: true },
      acme.auth,
    );
    assert.equal(published.statusCode, 200, published.body);
    const res = await get(`/kb/${acme.workspace.slug}/returns`);
    const scripts = [...res.body.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
    if (scripts.length === 0) {
      // The widget is not built in this checkout: nothing to embed, and no broken tag.
      assert.doesNotMatch(res.body, /<script/);
    } else {
      assert.equal(scripts.length, 1);
      assert.match(
        scripts[0] ?? '',
        new RegExp(`^<script src="/widget/widget\\.js\\?v=[0-9a-f]+" data-agent-id="${agentId}" async>$`),
      );
    }
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    // The other workspace's pages never embed it.
    assert.doesNotMatch((await get(`/kb/${other.workspace.slug}`)).body, /<script/);
    await settings(acme, { widget_agent_id: null });
  });

  test('the stylesheet: long-cached at its hash, revalidated otherwise, 304 on a matching ETag', async () => {
    const hashed = await get(`/kb-assets/kb.css?v=${KB_CSS_HASH}`);
    assert.equal(hashed.statusCode, 200);
    assert.equal(hashed.headers['content-type'], 'text/css; charset=utf-8');
    assert.equal(hashed.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(hashed.body, /prefers-color-scheme:dark/);
    const plain = await get('/kb-assets/kb.css');
    assert.equal(plain.headers['cache-control'], 'no-cache');
    const again = await t.app.inject({
      url: '/kb-assets/kb.css',
      headers: { 'if-none-match': `"${KB_CSS_HASH}"` },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
  });

  test('without PUBLIC_BASE_URL the canonical address is the request origin', async () => {
    const local = await createTestApp();
    try {
      const tenant = await seedTenant(local, 'Local Pages');
      const res = await local.app.inject({
        url: `/kb/${tenant.workspace.slug}`,
        headers: { host: 'kb.local:8080' },
      });
      assert.match(
        res.body,
        new RegExp(`<link rel="canonical" href="http://kb\\.local:8080/kb/${tenant.workspace.slug}">`),
      );
    } finally {
      await local.close();
    }
  });

  test('/demo is styled from this origin under a policy without unsafe-inline', async () => {
    const res = await get('/demo');
    const csp = String(res.headers['content-security-policy']);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.match(csp, /style-src 'self'/);
    assert.match(res.body, /<link rel="stylesheet" href="\/kb-assets\/kb\.css\?v=/);
    assert.doesNotMatch(res.body, /<style|\sstyle=/);
  });
});
