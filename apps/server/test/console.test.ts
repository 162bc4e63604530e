import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { seedDemo } from '../src/services/ops/demo-seed.js';
import { createTestApp, type TestApp } from './support/test-app.js';

// The console surface serves whatever a console build left in ADMIN_DIST_DIR: here a small
// build laid out the way Vite writes it (index.html, hashed files in assets/, an icon).
const INDEX =
  '<!doctype html><title>Console</title><script type="module" src="/admin/assets/index-Ab12Cd34.js"></script>';
const SCRIPT = 'console.log("console");';

function assertConsoleCsp(response: LightMyRequestResponse): void {
  const csp = String(response.headers['content-security-policy']);
  assert.match(csp, /(?:^|; )default-src 'self'(?:;|$)/);
  assert.match(csp, /(?:^|; )script-src 'self'(?:;|$)/);
  assert.match(csp, /(?:^|; )style-src 'self'(?:;|$)/);
  assert.match(csp, /(?:^|; )frame-ancestors 'none'(?:;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.equal(response.headers['x-frame-options'], 'DENY');
}

describe('the console surface (/admin/) with a built console', () => {
  let t: TestApp;
  let dist: string;
  before(async () => {
    dist = await mkdtemp(join(tmpdir(), 'svc-console-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), INDEX);
    await writeFile(join(dist, 'assets', 'index-Ab12Cd34.js'), SCRIPT);
    await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(join(dist, 'secret.env'), 'NOT=SERVED');
    t = await createTestApp({ env: { ADMIN_DIST_DIR: dist } });
  });
  after(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  const get = (url: string) => t.app.inject({ method: 'GET', url });

  test('/admin/ and /admin answer index.html, no-cache, under the strict CSP', async () => {
    for (const url of ['/admin/', '/admin']) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.equal(response.headers['cache-control'], 'no-cache');
      assert.equal(response.body, INDEX);
      assertConsoleCsp(response);
    }
  });

  test('a deep link under /admin/ answers index.html (the app routes in the browser)', async () => {
    for (const url of [
      '/admin/agents',
      '/admin/sign-in?next=%2Fadmin%2Fagents',
      '/admin/agents/abc/settings',
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.body, INDEX, url);
      assert.equal(response.headers['cache-control'], 'no-cache');
    }
  });

  test('hashed assets are immutable for a year, with their type and the CSP', async () => {
    const response = await get('/admin/assets/index-Ab12Cd34.js');
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, SCRIPT);
    assert.match(String(response.headers['content-type']), /^text\/javascript/);
    assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
    assertConsoleCsp(response);
  });

  test('an unknown asset is a 404 in the envelope (not index.html), and nothing outside the build is read', async () => {
    for (const url of [
      '/admin/assets/missing-00000000.js',
      '/admin/assets/..%2Findex.html',
      '/admin/assets/..%2F..%2Fpackage.json',
      '/admin/assets/%2Fetc%2Fpasswd',
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(response.json().code, 'not_found', url);
      assertConsoleCsp(response);
    }
    const unknownType = await get('/admin/secret.env');
    assert.equal(unknownType.body, INDEX, 'a file of no console type is never sent');
  });

  test('an unhashed public file (the icon) is revalidated', async () => {
    const response = await get('/admin/favicon.svg');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'image/svg+xml');
    assert.equal(response.headers['cache-control'], 'no-cache');
  });

  test('/ redirects to /admin/', async () => {
    const response = await get('/');
    assert.equal(response.statusCode, 302);
    assert.equal(response.headers.location, '/admin/');
  });

  test('the API keeps its own answers (the console fallback does not swallow /api)', async () => {
    const response = await get('/api/v1/admin/agents');
    assert.equal(response.statusCode, 401);
  });
});

describe('the console surface before the console is built', () => {
  let t: TestApp;
  let dist: string;
  before(async () => {
    dist = await mkdtemp(join(tmpdir(), 'svc-console-empty-'));
    t = await createTestApp({ env: { ADMIN_DIST_DIR: dist } });
  });
  after(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  test('/admin/ and deep links answer a clear 503 page naming the build command', async () => {
    for (const url of ['/admin/', '/admin/agents']) {
      const response = await t.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 503, url);
      assert.match(String(response.headers['content-type']), /^text\/html/);
      assert.match(response.body, /has not been built/);
      assert.match(response.body, /npm run build/);
      assertConsoleCsp(response);
    }
  });

  test('/ answers a status page with neither console nor demo, then redirects to /demo once the demo exists', async () => {
    const status = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(status.statusCode, 200);
    assert.match(String(status.headers['content-type']), /^text\/html/);
    assert.match(status.body, /service is running/);
    await seedDemo({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      appKey: t.config.appKey,
      origins: [],
      log: { info: () => {} },
    });
    const demo = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(demo.statusCode, 302);
    assert.equal(demo.headers.location, '/demo');
  });

  test('a build made while the service runs is served without a restart', async () => {
    await mkdir(join(dist, 'assets'), { recursive: true });
    await writeFile(join(dist, 'index.html'), INDEX);
    const response = await t.app.inject({ method: 'GET', url: '/admin/' });
    assert.equal(response.statusCode, 200);
    assert.equal(response.body, INDEX);
    // And / now goes to the console rather than the demo.
    assert.equal((await t.app.inject({ method: 'GET', url: '/' })).headers.location, '/admin/');
  });
});
