import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ZAgent, ZSiteTheme } from '@service/contract';
import { contrastRatio } from '../src/services/widget/widget-theme.js';
import { expectData, expectValidation } from './support/http.js';
import { createTestApp, injectJson, type TestApp } from './support/test-app.js';
import { createWidgetAgent } from './support/widget.js';

// The console picks the widget's colours from the site: its home page's theme colour, read
// through the crawl-safety guard (a loopback site allowed by SAFE_URL_ALLOW), contrast checked.

const PAGES: Record<string, string> = {
  '/': '<!doctype html><html><head><meta name="theme-color" content="#ffd700"><title>Gold shop</title></head></html>',
  '/brown': '<html><head><meta name="theme-color" content="rgb(91, 58, 41)"></head></html>',
  '/none': '<html><head><title>No colour</title></head></html>',
};

describe('admin: theme from the site', () => {
  let t: TestApp;
  let site: Server;
  let siteUrl = '';
  before(async () => {
    site = createServer((req, res) => {
      const body = PAGES[req.url ?? ''];
      if (body === undefined) res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Gone</p>');
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    t = await createTestApp({ env: { SAFE_URL_ALLOW: siteUrl.replace('http://', '') } });
  });
  after(async () => {
    await t.close();
    await new Promise((resolve) => site.close(resolve));
  });

  const suggest = (agentId: string, auth: Record<string, string>, body: unknown = {}) =>
    injectJson(t.app, 'POST', `/api/v1/admin/agents/${agentId}/theme/from-site`, body, auth);

  test('reads the home page of the first allowed site and suggests readable colours; saves nothing', async () => {
    const { tenant, agentId } = await createWidgetAgent(t, { allowed_origins: ['*', siteUrl] });
    const theme = expectData(await suggest(agentId, tenant.auth), 200, ZSiteTheme);
    assert.equal(theme.source_url, `${siteUrl}/`);
    assert.equal(theme.primary, '#ffd700');
    assert.equal(theme.on_primary, '#111111', 'dark text on gold');
    assert.ok(theme.contrast >= 4.5);
    assert.equal(theme.is_adjusted, true, 'gold is too light as text on white');
    assert.ok(contrastRatio(theme.primary_text, '#ffffff') >= 4.5);
    const brown = expectData(
      await suggest(agentId, tenant.auth, { url: `${siteUrl}/brown` }),
      200,
      ZSiteTheme,
    );
    assert.deepEqual(
      [brown.primary, brown.on_primary, brown.primary_text, brown.is_adjusted],
      ['#5b3a29', '#ffffff', '#5b3a29', false],
    );
    const agent = expectData(
      await t.app.inject({ method: 'GET', url: `/api/v1/admin/agents/${agentId}`, headers: tenant.auth }),
      200,
      ZAgent,
    );
    assert.equal(agent.theme.primary, '#1f6feb', 'the stored theme is unchanged');
  });

  test('a page without a colour, an unsafe or a non-http address is a 422 on url', async () => {
    const { tenant, agentId } = await createWidgetAgent(t, { allowed_origins: [siteUrl] });
    const none = expectValidation(await suggest(agentId, tenant.auth, { url: `${siteUrl}/none` }), ['url']);
    assert.match(none.errors.url?.[0] ?? '', /theme-color/);
    const missing = expectValidation(await suggest(agentId, tenant.auth, { url: `${siteUrl}/gone` }), [
      'url',
    ]);
    assert.match(missing.errors.url?.[0] ?? '', /HTTP 404/);
    // Refused by the guard before any connection (a metadata address, a private host).
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://localhost:1/',
    ]) {
      const refused = expectValidation(await suggest(agentId, tenant.auth, { url }), ['url']);
      assert.match(refused.errors.url?.[0] ?? '', /could not be read: refused/, url);
    }
    for (const url of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'ftp://a.example/',
      `${siteUrl}/\u0000`,
    ]) {
      expectValidation(await suggest(agentId, tenant.auth, { url }), ['url']);
    }
    expectValidation(await suggest(agentId, tenant.auth, { url: siteUrl, extra: true }), ['extra']);
  });

  test('an agent without an allowed site needs the url; another workspace gets 404', async () => {
    const { tenant, agentId } = await createWidgetAgent(t, { allowed_origins: ['*'] });
    expectValidation(await suggest(agentId, tenant.auth), ['url']);
    const other = await createWidgetAgent(t, { allowed_origins: [siteUrl] });
    assert.equal((await suggest(other.agentId, tenant.auth)).statusCode, 404);
  });
});
