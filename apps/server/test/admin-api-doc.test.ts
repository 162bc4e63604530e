import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { adminRoutesOf } from './support/routes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const ADMIN_API_DOC = fileURLToPath(new URL('../../../docs/admin-api.md', import.meta.url));
const PREFIX = '/api/v1/admin';

/** `METHOD /path` with the admin prefix dropped and every parameter (`:id`, `{id}`) as `{}`. */
function normalise(method: string, path: string): string {
  const bare = path.split('?')[0] ?? '';
  const relative = bare.startsWith(PREFIX) ? bare.slice(PREFIX.length) || '/' : bare;
  return `${method} ${relative.replace(/:[A-Za-z_]+|\{[^}]*\}/g, '{}').replace(/\/$/, '') || '/'}`;
}

/** Every `` `METHOD /path` `` the page names, normalised. */
export function documentedRoutes(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const match of markdown.matchAll(/`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s]*)`/g)) {
    out.add(normalise(match[1] ?? '', match[2] ?? ''));
  }
  return out;
}

describe('docs/admin-api.md names every admin route', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('normalising treats :id, {id} and the full prefix alike', () => {
    assert.equal(normalise('GET', '/api/v1/admin/agents/:id'), 'GET /agents/{}');
    assert.equal(normalise('GET', '/agents/{id}'), 'GET /agents/{}');
    assert.equal(normalise('GET', '/audit-logs?limit=50'), 'GET /audit-logs');
    assert.deepEqual(
      [...documentedRoutes('a `GET /x/{id}/y` and `POST /api/v1/admin/z`')],
      ['GET /x/{}/y', 'POST /z'],
    );
  });

  test('every route the router serves under /api/v1/admin is named on the page', async () => {
    const documented = documentedRoutes(await readFile(ADMIN_API_DOC, 'utf8'));
    const served = adminRoutesOf(t.app.printRoutes({ commonPrefix: false }));
    assert.ok(served.length > 30, `the router list looks short: ${served.length}`);
    const missing = served
      .map((route) => normalise(route.method, route.path))
      .filter((route) => !documented.has(route));
    assert.deepEqual([...new Set(missing)].sort(), [], 'routes missing from docs/admin-api.md');
  });
});
