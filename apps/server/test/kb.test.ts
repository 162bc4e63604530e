import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZKbArticle, ZKbPreviewHtml } from '@service/contract';
import type { LightMyRequestResponse } from 'fastify';
import { auditRows, expectData, expectError, expectPage, expectValidation } from './support/http.js';
import {
  createTestApp,
  injectJson,
  issueToken,
  seedTenant,
  type Tenant,
  type TestApp,
} from './support/test-app.js';

const BASE = '/api/v1/admin/kb/articles';

function assertHtmlPage(res: LightMyRequestResponse, status: number): void {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(res.body, /^<!doctype html>/);
  // Only same-origin stylesheets, no inline script or style, no script at all without a widget.
  assert.doesNotMatch(res.body, /<script/i);
  assert.doesNotMatch(
    res.body,
    /<style|\sstyle=|\son[a-z]+=|src="http|@import/i,
    'no inline or external resources',
  );
  for (const [, href] of res.body.matchAll(/<link rel="stylesheet" href="([^"]*)"/g)) {
    assert.match(href ?? '', /^\/kb(?:-assets)?\//, 'stylesheets come from this origin');
  }
  const csp = String(res.headers['content-security-policy']);
  for (const directive of [
    "default-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
    "style-src 'self'",
    "script-src 'self'",
  ]) {
    assert.ok(
      csp
        .split(';')
        .map((part) => part.trim())
        .includes(directive),
      `${directive} in ${csp}`,
    );
  }
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['referrer-policy'], 'strict-origin-when-cross-origin');
  assert.equal(res.headers['strict-transport-security'], undefined, 'no HSTS on plain http');
}

describe('knowledge base: admin CRUD and public pages', () => {
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;

  const create = (tenant: Tenant, body: unknown) => injectJson(t.app, 'POST', BASE, body, tenant.auth);

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme KB');
    other = await seedTenant(t, 'Other KB');
  });
  after(() => t.close());

  test('creates, reads, lists, updates and deletes an article, each write audited', async () => {
    const created = expectData(
      await create(acme, { title: 'Getting Started!', body_markdown: '# Hello' }),
      201,
      ZKbArticle,
    );
    assert.equal(created.slug, 'getting-started');
    assert.equal(created.is_published, false);
    assert.equal(created.published_at, null);
    const second = expectData(
      await create(acme, { title: 'Getting started', body_markdown: '' }),
      201,
      ZKbArticle,
    );
    assert.equal(second.slug, 'getting-started-2', 'a derived slug gets a suffix');

    const read = expectData(
      await t.app.inject({ url: `${BASE}/${created.id}`, headers: acme.auth }),
      200,
      ZKbArticle,
    );
    assert.deepEqual(read, created);
    const list = expectPage(await t.app.inject({ url: BASE, headers: acme.auth }), 200, ZKbArticle);
    assert.deepEqual(
      list.map((article) => article.id),
      [created.id, second.id],
    );

    const published = expectData(
      await injectJson(
        t.app,
        'PATCH',
        `${BASE}/${created.id}`,
        { is_published: true, title: 'Start' },
        acme.auth,
      ),
      200,
      ZKbArticle,
    );
    assert.equal(published.is_published, true);
    assert.equal(published.title, 'Start');
    assert.ok(published.published_at);

    const del = await t.app.inject({ method: 'DELETE', url: `${BASE}/${second.id}`, headers: acme.auth });
    assert.equal(del.statusCode, 204);
    expectError(await t.app.inject({ url: `${BASE}/${second.id}`, headers: acme.auth }), 404, 'not_found');

    const audit = (await auditRows(t, acme.workspace.id)).filter((row) =>
      row.action.startsWith('kb_article.'),
    );
    assert.deepEqual(
      audit.map((row) => [row.action, row.target_type, row.target_id]),
      [
        ['kb_article.created', 'kb_article', created.id],
        ['kb_article.created', 'kb_article', second.id],
        ['kb_article.updated', 'kb_article', created.id],
        ['kb_article.deleted', 'kb_article', second.id],
      ],
    );
    assert.deepEqual(audit[2]?.metadata, { fields: ['is_published', 'title'] });
    assert.equal(audit[0]?.actor_type, 'token');
  });

  test('validation: bad bodies and a slug taken in the workspace are 422 on the field', async () => {
    expectValidation(await create(acme, { body_markdown: 'x' }), ['title']);
    expectValidation(await create(acme, { title: 'x', body_markdown: 'x', slug: 'Bad Slug' }), ['slug']);
    expectValidation(await create(acme, { title: 'x', body_markdown: 'x', slug: 'a'.repeat(121) }), ['slug']);
    expectValidation(await create(acme, { title: 'x'.repeat(301), body_markdown: 'x' }), ['title']);
    expectValidation(await create(acme, { title: 'x', body_markdown: 'x', workspace_id: 'w' }), [
      'workspace_id',
    ]);
    expectValidation(await create(acme, { title: 'x', body_markdown: 'x'.repeat(500_001) }), [
      'body_markdown',
    ]);

    expectData(await create(acme, { title: 'One', slug: 'taken', body_markdown: '' }), 201, ZKbArticle);
    expectValidation(await create(acme, { title: 'Two', slug: 'taken', body_markdown: '' }), ['slug']);
    const two = expectData(
      await create(acme, { title: 'Two', slug: 'two', body_markdown: '' }),
      201,
      ZKbArticle,
    );
    expectValidation(await injectJson(t.app, 'PATCH', `${BASE}/${two.id}`, { slug: 'taken' }, acme.auth), [
      'slug',
    ]);
    expectValidation(await injectJson(t.app, 'PATCH', `${BASE}/${two.id}`, { nope: 1 }, acme.auth), ['nope']);
    // The same slug in another workspace is fine.
    expectData(await create(other, { title: 'Taken', slug: 'taken', body_markdown: '' }), 201, ZKbArticle);
  });

  test("another workspace's article is a 404 on read, update and delete, and nothing changes", async () => {
    const mine = expectData(
      await create(acme, { title: 'Private', slug: 'private', body_markdown: 'secret' }),
      201,
      ZKbArticle,
    );
    expectError(await t.app.inject({ url: `${BASE}/${mine.id}`, headers: other.auth }), 404, 'not_found');
    expectError(
      await injectJson(t.app, 'PATCH', `${BASE}/${mine.id}`, { title: 'Stolen' }, other.auth),
      404,
      'not_found',
    );
    expectError(
      await t.app.inject({ method: 'DELETE', url: `${BASE}/${mine.id}`, headers: other.auth }),
      404,
      'not_found',
    );
    const after = expectData(
      await t.app.inject({ url: `${BASE}/${mine.id}`, headers: acme.auth }),
      200,
      ZKbArticle,
    );
    assert.deepEqual(after, mine);
    const otherList = expectPage(await t.app.inject({ url: BASE, headers: other.auth }), 200, ZKbArticle);
    assert.ok(!otherList.some((article) => article.id === mine.id));
  });

  test('a published article is served as a rendered, escaped HTML page with the security headers', async () => {
    await create(acme, {
      title: 'Shipping <script>alert(1)</script> & "returns"',
      slug: 'shipping',
      body_markdown:
        '## Rates\n\nWe ship **fast**.\n\n- EU\n- US\n\n[Carrier](https://carrier.example/track) [bad](javascript:alert(1))\n\n<img src=x onerror=alert(1)>\n',
      is_published: true,
    });
    const res = await t.app.inject({ url: `/kb/${acme.workspace.slug}/shipping` });
    assertHtmlPage(res, 200);
    assert.match(
      res.body,
      /<title>Shipping &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;returns&quot; · Acme KB help centre<\/title>/,
    );
    assert.match(
      res.body,
      /<h1>Shipping &lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &quot;returns&quot;<\/h1>/,
    );
    assert.match(res.body, /<h2>Rates<\/h2>/);
    assert.match(res.body, /<strong>fast<\/strong>/);
    assert.match(res.body, /<li>EU<\/li>/);
    assert.match(
      res.body,
      /<a href="https:\/\/carrier\.example\/track" rel="nofollow noopener noreferrer">Carrier<\/a>/,
    );
    assert.doesNotMatch(res.body, /href="javascript:/i);
    // The raw <img> is stripped, not shown as escaped text.
    assert.doesNotMatch(res.body, /onerror|&lt;img|<img/);
  });

  test('raw HTML in an article body is stripped on the public page: tags and script bodies gone, text kept', async () => {
    const hostile = [
      'Intro <b>kept</b> and <span class="x">kept too</span>.',
      '<SCRIPT>steal(document.cookie)</SCRIPT>',
      'inline <ScRiPt>steal(1)</sCrIpT> gone',
      '<iframe src="javascript:steal(2)"></iframe>',
      '<svg\n  onload="steal(3)"\n  width=1>',
      '<div>\nin a <i>div</i>\n<script>\nsteal(4)\n</script>\n</div>',
      '<!-- <img src=x onerror=steal(5)> -->',
      '<!-->after an empty comment',
      '<![CDATA[<script>steal(6)</script>]]>',
      '<<b>script>steal(7)<</b>/script>',
      'Use `<script>` in code.',
      '<script>steal(8)',
    ].join('\n\n');
    await create(acme, { title: 'Hostile', slug: 'hostile', body_markdown: hostile, is_published: true });
    const res = await t.app.inject({ url: `/kb/${acme.workspace.slug}/hostile` });
    assertHtmlPage(res, 200);
    // The article's body: after its title, up to the end of the article (the page's own frame follows).
    const body = res.body.slice(res.body.indexOf('</h1>'), res.body.indexOf('</article>'));
    assert.doesNotMatch(body, /steal|onload|onerror|<iframe|<svg|<img|<div|<span|<b>|<i>|CDATA|<!--/i);
    assert.doesNotMatch(
      body.replace(/<code>[^<]*<\/code>/g, ''),
      /&lt;|&gt;/,
      'no tag shown as escaped text',
    );
    assert.match(body, /<p>Intro kept and kept too\.<\/p>/);
    assert.match(body, /<p>inline {2}gone<\/p>/);
    assert.match(body, /<p>in a div<\/p>/);
    assert.match(body, /<p>after an empty comment<\/p>/);
    assert.match(body, /<p>Use <code>&lt;script&gt;<\/code> in code\.<\/p>/);
  });

  test('unpublished, unknown, and other-workspace articles answer the same 404 page', async () => {
    await create(acme, { title: 'Draft', slug: 'draft', body_markdown: 'draft text' });
    await create(other, { title: 'Theirs', slug: 'theirs', body_markdown: 'their text', is_published: true });
    const draft = await t.app.inject({ url: `/kb/${acme.workspace.slug}/draft` });
    const unknown = await t.app.inject({ url: `/kb/${acme.workspace.slug}/no-such-article` });
    const cross = await t.app.inject({ url: `/kb/${acme.workspace.slug}/theirs` });
    const noWorkspace = await t.app.inject({ url: '/kb/no-such-workspace/draft' });
    for (const res of [draft, unknown, cross, noWorkspace]) assertHtmlPage(res, 404);
    assert.equal(draft.body, unknown.body);
    assert.equal(cross.body, unknown.body);
    assert.equal(noWorkspace.body, unknown.body);
    assert.doesNotMatch(draft.body, /draft text|Draft/);
    // The other workspace reaches its own article at its own path.
    assertHtmlPage(await t.app.inject({ url: `/kb/${other.workspace.slug}/theirs` }), 200);
    assertHtmlPage(await t.app.inject({ url: '/kb/no-such-workspace' }), 404);
  });

  test('unpublishing takes the page down', async () => {
    const article = expectData(
      await create(acme, { title: 'Soon gone', slug: 'soon-gone', body_markdown: 'x', is_published: true }),
      201,
      ZKbArticle,
    );
    assertHtmlPage(await t.app.inject({ url: `/kb/${acme.workspace.slug}/soon-gone` }), 200);
    const patched = expectData(
      await injectJson(t.app, 'PATCH', `${BASE}/${article.id}`, { is_published: false }, acme.auth),
      200,
      ZKbArticle,
    );
    assert.equal(patched.published_at, null);
    assertHtmlPage(await t.app.inject({ url: `/kb/${acme.workspace.slug}/soon-gone` }), 404);
  });

  test('the index lists only published articles of that workspace, titles escaped', async () => {
    await create(acme, { title: 'Tips <b>&</b>', slug: 'tips', body_markdown: 'x', is_published: true });
    const res = await t.app.inject({ url: `/kb/${acme.workspace.slug}` });
    assertHtmlPage(res, 200);
    assert.match(res.body, new RegExp(`<a href="/kb/${acme.workspace.slug}/shipping">`));
    assert.match(res.body, /<a href="\/kb\/[a-z0-9-]+\/tips">Tips &lt;b&gt;&amp;&lt;\/b&gt;<\/a>/);
    for (const hidden of ['draft', 'private', 'taken', 'soon-gone', 'theirs']) {
      assert.ok(!res.body.includes(`/${hidden}"`), `${hidden} is not listed`);
    }
  });

  test('two creates racing for one slug: one 201, one 422 on slug, never a 500', async () => {
    const body = { title: 'Race', slug: 'race-slug', body_markdown: 'x' };
    const results = await Promise.all([create(acme, body), create(acme, body)]);
    assert.deepEqual(results.map((res) => res.statusCode).sort(), [201, 422]);
    const loser = results.find((res) => res.statusCode === 422);
    assert.ok(loser?.json().errors.slug);
  });

  test('an over-long slug in a public URL gets the same HTML 404 page', async () => {
    const res = await t.app.inject({ url: `/kb/${acme.workspace.slug}/${'a'.repeat(150)}` });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^text\/html/);
  });

  test('the preview renders hostile markdown as the public page would, and stores nothing', async () => {
    const hostile = [
      '# Title',
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(2)>',
      '<style>body{display:none}</style>',
      '[click](javascript:alert(3)) [enc](jav&#x61;script:alert(4)) [ok](https://example.com/a)',
      '![pic](data:image/svg+xml;base64,PHN2Zz4=)',
      '<a href="javascript:alert(5)">raw link</a> kept text',
      '<iframe src="https://evil.example"></iframe>',
    ].join('\n\n');
    const before = (await t.database.db.selectFrom('kb_articles').select('id').execute()).length;
    const res = await injectJson(t.app, 'POST', '/api/v1/admin/kb/preview', { markdown: hostile }, acme.auth);
    const { html } = expectData(res, 200, ZKbPreviewHtml);
    assert.match(html, /<h1>Title<\/h1>/);
    assert.match(html, /<a href="https:\/\/example\.com\/a" rel="nofollow noopener noreferrer">ok<\/a>/);
    assert.match(html, /kept text/);
    for (const banned of [
      /<script/i,
      /alert\(1\)/,
      /onerror/i,
      /<style/i,
      /display:none/,
      /<img/i,
      /<iframe/i,
      /src=/i,
    ]) {
      assert.doesNotMatch(html, banned);
    }
    // The javascript: and data: targets stay as inert text; the only link is the https one.
    assert.deepEqual(html.match(/href="[^"]*"/g), ['href="https://example.com/a"']);
    const after = (await t.database.db.selectFrom('kb_articles').select('id').execute()).length;
    assert.equal(after, before, 'a preview stores no article');
  });

  test('the preview takes up to 500 000 characters, needs the admin ability, and refuses unknown fields', async () => {
    const max = await injectJson(
      t.app,
      'POST',
      '/api/v1/admin/kb/preview',
      { markdown: 'a'.repeat(500_000) },
      acme.auth,
    );
    assert.equal(max.statusCode, 200);
    expectValidation(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/kb/preview',
        { markdown: 'a'.repeat(500_001) },
        acme.auth,
      ),
      ['markdown'],
    );
    expectValidation(
      await injectJson(t.app, 'POST', '/api/v1/admin/kb/preview', { markdown: 'x', title: 'y' }, acme.auth),
      [],
    );
    const plugin = await issueToken(t, acme, ['wp:integration']);
    expectError(
      await injectJson(
        t.app,
        'POST',
        '/api/v1/admin/kb/preview',
        { markdown: 'x' },
        { authorization: `Bearer ${plugin.token}` },
      ),
      403,
    );
    expectError(await injectJson(t.app, 'POST', '/api/v1/admin/kb/preview', { markdown: 'x' }, {}), 401);
  });
});
