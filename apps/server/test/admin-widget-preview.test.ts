import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { SESSION_COOKIE } from '../src/services/accounts/admin-sessions.js';
import { postSignIn } from './support/admin-session.js';
import { bearer, expectError, UNAUTHENTICATED_BODY } from './support/http.js';
import { createTestApp, issueToken, seedTenant, type Tenant, type TestApp } from './support/test-app.js';

// GET /api/v1/admin/widget-preview: the page the console's agent settings frame. It loads the
// served widget bundle in preview mode and nothing else; only a signed-in console (same origin)
// may frame it; no widget route is called, so it makes no visitor.

const URL_PATH = '/api/v1/admin/widget-preview';
const MANIFEST = new URL('../../widget/dist/manifest.json', import.meta.url);

function assertPreviewHeaders(res: LightMyRequestResponse): void {
  const csp = String(res.headers['content-security-policy']);
  const directives = new Map(
    csp.split(';').map((part) => {
      const [name = '', ...values] = part.trim().split(/\s+/);
      return [name, values.join(' ')] as const;
    }),
  );
  assert.equal(directives.get('default-src'), "'none'");
  assert.equal(directives.get('script-src'), "'self'");
  assert.equal(directives.get('style-src'), "'self'");
  assert.equal(directives.get('connect-src'), "'self'");
  assert.equal(directives.get('frame-ancestors'), "'self'", 'framed by the console only');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
}

describe('admin: widget preview page', () => {
  let t: TestApp;
  let acme: Tenant;
  let hash = '';

  before(async () => {
    t = await createTestApp();
    acme = await seedTenant(t, 'Acme Preview');
    hash = JSON.parse(await readFile(MANIFEST, 'utf8')).widget.hash;
  });
  after(() => t.close());

  const visitorCount = async () =>
    (
      await t.database.db
        .selectFrom('visitors')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n;

  test('without a credential: 401 with no detail and no page', async () => {
    for (const headers of [{}, { cookie: `${SESSION_COOKIE}=forged` }, bearer('svc_not-a-token')]) {
      const res = await t.app.inject({ url: URL_PATH, headers });
      expectError(res, 401);
      assert.equal(res.body, UNAUTHENTICATED_BODY);
    }
  });

  test('a token without the admin ability: 403', async () => {
    const token = await issueToken(t, acme, ['wp:integration']);
    expectError(await t.app.inject({ url: URL_PATH, headers: bearer(token.token) }), 403);
  });

  test('the page loads the served bundle in preview mode, and nothing inline', async () => {
    const visitorsBefore = await visitorCount();
    const res = await t.app.inject({ url: URL_PATH, headers: acme.auth });
    assert.equal(res.statusCode, 200, res.body);
    assertPreviewHeaders(res);
    const scripts = [...res.body.matchAll(/<script\b[^>]*>/g)].map((match) => match[0]);
    assert.deepEqual(scripts, [`<script src="/widget/widget.js?v=${hash}" data-preview async>`]);
    assert.doesNotMatch(res.body, /style=|<style|data-agent-id|\son[a-z]+=/i);
    // The script it names is the bundle the service serves.
    const bundle = await t.app.inject({ url: `/widget/widget.js?v=${hash}` });
    assert.equal(bundle.statusCode, 200);
    assert.equal(bundle.headers.etag, `"${hash}"`);
    assert.equal(await visitorCount(), visitorsBefore, 'no visitor made');
  });

  test('a signed-in console (session cookie) gets it too; a GET needs no CSRF header', async () => {
    const signedIn = await postSignIn(
      t.app,
      { email: acme.user.email, password: 'correct horse battery' },
      '10.0.9.1',
    );
    assert.equal(signedIn.statusCode, 200, signedIn.body);
    const secret = signedIn.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
    const res = await t.app.inject({ url: URL_PATH, headers: { cookie: `${SESSION_COOKIE}=${secret}` } });
    assert.equal(res.statusCode, 200, res.body);
    assertPreviewHeaders(res);
  });
});

describe('admin: widget preview page while the widget is not built', () => {
  let t: TestApp;
  let acme: Tenant;
  let empty: string;

  before(async () => {
    empty = await mkdtemp(join(tmpdir(), 'svc-no-widget-'));
    t = await createTestApp({ env: { WIDGET_DIST_DIR: empty } });
    acme = await seedTenant(t, 'Acme Unbuilt');
  });
  after(async () => {
    await t.close();
    await rm(empty, { recursive: true, force: true });
  });

  test('503 not_ready in the service envelope', async () => {
    const body = expectError(await t.app.inject({ url: URL_PATH, headers: acme.auth }), 503, 'not_ready');
    assert.match(body.message, /not been built/);
  });
});
