import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { expectData, expectError } from './support/http.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { createWidgetAgent } from './support/widget.js';

const hash8 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** Writes a widget build (manifest, bundle, one locale) into `dir`. */
async function writeBuild(dir: string, source: string): Promise<string> {
  const hash = hash8(source);
  const pt = JSON.stringify({ send: 'Enviar' });
  await mkdir(join(dir, 'locales'), { recursive: true });
  await writeFile(join(dir, `widget.${hash}.js`), source);
  await writeFile(join(dir, `locales/pt-br.${hash8(pt)}.json`), pt);
  await writeFile(
    join(dir, 'manifest.json'),
    JSON.stringify({
      widget: { file: `widget.${hash}.js`, hash, bytes: source.length },
      locales: { 'pt-br': { file: `locales/pt-br.${hash8(pt)}.json`, hash: hash8(pt) } },
    }),
  );
  return hash;
}

describe('serving the widget', () => {
  let t: TestApp;
  let dist: string;
  before(async () => {
    dist = await mkdtemp(join(tmpdir(), 'svc-widget-dist-'));
    t = await createTestApp({ env: { WIDGET_DIST_DIR: dist, PUBLIC_BASE_URL: 'https://chat.example.com' } });
  });
  after(async () => {
    await t.close();
    await rm(dist, { recursive: true, force: true });
  });

  test('not built yet: 503 in the envelope', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/widget/widget.js' }), 503, 'not_ready');
  });

  test('the latest hashed bundle at the stable path: no-cache, strong ETag, 304, JS type; a rebuild is served at once', async () => {
    const first = await writeBuild(dist, 'console.log("v1");');
    const res = await t.app.inject({ method: 'GET', url: '/widget/widget.js?v=anything' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, 'console.log("v1");');
    assert.equal(res.headers.etag, `"${first}"`);
    assert.equal(res.headers['cache-control'], 'no-cache, must-revalidate');
    assert.match(String(res.headers['content-type']), /^text\/javascript; charset=utf-8/);
    const again = await t.app.inject({
      method: 'GET',
      url: '/widget/widget.js',
      headers: { 'if-none-match': `"${first}"` },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');
    const weak = await t.app.inject({
      method: 'GET',
      url: '/widget/widget.js',
      headers: { 'if-none-match': `W/"${first}"` },
    });
    assert.equal(weak.statusCode, 200, 'a weak validator does not match a strong ETag');

    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await writeBuild(dist, 'console.log("v2");');
    const fresh = await t.app.inject({
      method: 'GET',
      url: '/widget/widget.js',
      headers: { 'if-none-match': `"${first}"` },
    });
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.body, 'console.log("v2");');
    assert.equal(fresh.headers.etag, `"${second}"`);
  });

  test('locale files by tag, case-insensitive; unknown tags 404, odd names 422', async () => {
    await writeBuild(dist, 'console.log("v3");');
    const res = await t.app.inject({ method: 'GET', url: '/widget/locales/pt-BR.json?v=1' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { send: 'Enviar' });
    assert.equal(res.headers['access-control-allow-origin'], '*');
    expectError(await t.app.inject({ method: 'GET', url: '/widget/locales/xx.json' }), 404, 'not_found');
    expectError(
      await t.app.inject({ method: 'GET', url: '/widget/locales/..%2Fmanifest.json' }),
      422,
      'validation_failed',
    );
  });

  test('the admin API gives the embed snippet: stable path with ?v=, never the hashed file name', async () => {
    const hash = await writeBuild(dist, 'console.log("v4");');
    const { tenant, agentId } = await createWidgetAgent(t);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/agents/${agentId}/embed`,
      headers: tenant.auth,
    });
    const data = expectData(
      res,
      200,
      z.object({ snippet: z.string(), script_url: z.string(), is_published: z.boolean() }),
    );
    assert.equal(data.script_url, `https://chat.example.com/widget/widget.js?v=${hash}`);
    assert.equal(
      data.snippet,
      `<script src="https://chat.example.com/widget/widget.js?v=${hash}" data-agent-id="${agentId}" async></script>`,
    );
    assert.doesNotMatch(data.snippet, new RegExp(`widget\\.${hash}\\.js`));
    const other = await createWidgetAgent(t);
    expectError(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/admin/agents/${other.agentId}/embed`,
        headers: tenant.auth,
      }),
      404,
      'not_found',
    );
  });

  test('/demo without a demo workspace says so (404)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/demo' });
    assert.equal(res.statusCode, 404);
    assert.match(res.body, /no demo agent/);
  });
});
