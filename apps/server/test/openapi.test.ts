import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { HTTPMethods } from 'fastify';
import { z } from 'zod';
import { ADMIN_ROUTES } from './support/http.js';
import { adminRoutesOf, routesOf } from './support/routes.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const ZSchema: z.ZodType<{ [key: string]: unknown }> = z.record(z.string(), z.unknown());
const ZOperation = z.looseObject({
  summary: z.string().min(1),
  tags: z.array(z.string()).min(1),
  security: z.array(z.record(z.string(), z.array(z.string()))).optional(),
  parameters: z
    .array(z.looseObject({ in: z.string(), name: z.string(), required: z.boolean().optional() }))
    .optional(),
  requestBody: z
    .looseObject({ content: z.object({ 'application/json': z.object({ schema: ZSchema }) }) })
    .optional(),
  responses: z.record(
    z.string(),
    z.looseObject({ content: z.record(z.string(), z.object({ schema: ZSchema })).optional() }),
  ),
});
const ZDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  components: z.looseObject({ securitySchemes: z.record(z.string(), z.looseObject({ type: z.string() })) }),
  paths: z.record(z.string(), z.record(z.string(), ZOperation)),
});

const OPS_ROUTES: ReadonlyArray<{ method: HTTPMethods; path: string }> = [
  { method: 'GET', path: '/healthz' },
  { method: 'GET', path: '/readyz' },
];

/** `/a/:id` → `/a/{id}` (how OpenAPI names path parameters). */
const toOpenApi = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/**
 * The browser session routes (cookie only or no credential yet), first-run setup (the setup
 * code is the credential) and password reset (the mailed token is): tested on their own above.
 */
const SESSION_ROUTES = new Set([
  'POST /api/v1/admin/session',
  'GET /api/v1/admin/session',
  'DELETE /api/v1/admin/session',
  'GET /api/v1/admin/setup',
  'POST /api/v1/admin/setup',
  'POST /api/v1/admin/password-reset',
  'POST /api/v1/admin/password-reset/confirm',
  // The invite accept page's routes: the mailed token is the credential (no bearer, no session needed).
  'POST /api/v1/admin/invites/inspect',
  'POST /api/v1/admin/invites/accept',
]);

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: z.infer<typeof ZDocument>;

  const operation = (method: string, path: string) => {
    const op = doc.paths[toOpenApi(path)]?.[method.toLowerCase()];
    assert.ok(op, `${method} ${path} is not documented`);
    return op;
  };

  before(async () => {
    t = await createTestApp();
    const res = await t.app.inject({ url: '/docs/json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = ZDocument.parse(JSON.parse(res.body));
  });
  after(() => t.close());

  test('is OpenAPI 3.x with a bearer security scheme', () => {
    assert.match(doc.openapi, /^3\.\d+\.\d+$/);
    assert.ok(doc.info.title.length > 0);
    assert.deepEqual(
      {
        type: doc.components.securitySchemes.bearerAuth?.type,
        scheme: doc.components.securitySchemes.bearerAuth?.scheme,
      },
      { type: 'http', scheme: 'bearer' },
    );
    const cookie = doc.components.securitySchemes.sessionCookie;
    assert.deepEqual(cookie && { type: cookie.type, in: cookie.in, name: cookie.name }, {
      type: 'apiKey',
      in: 'cookie',
      name: 'svc_admin_session',
    });
  });

  test('signing in needs no credential; reading and ending a session need its cookie', () => {
    const signIn = operation('POST', '/api/v1/admin/session');
    assert.ok(signIn.security === undefined || signIn.security.length === 0);
    for (const status of ['200', '401', '403', '422', '429']) assert.ok(signIn.responses[status], status);
    for (const method of ['GET', 'DELETE']) {
      assert.deepEqual(operation(method, '/api/v1/admin/session').security, [{ sessionCookie: [] }], method);
    }
  });

  test('first-run setup needs no credential and documents its refusals', () => {
    const setup = operation('POST', '/api/v1/admin/setup');
    assert.ok(setup.security === undefined || setup.security.length === 0);
    for (const status of ['201', '403', '409', '422', '429']) assert.ok(setup.responses[status], status);
    const status = operation('GET', '/api/v1/admin/setup');
    assert.ok(status.security === undefined || status.security.length === 0);
  });

  test('password reset needs no credential and documents its refusals', () => {
    const ask = operation('POST', '/api/v1/admin/password-reset');
    assert.ok(ask.security === undefined || ask.security.length === 0);
    for (const status of ['202', '403', '422', '429']) assert.ok(ask.responses[status], status);
    const confirm = operation('POST', '/api/v1/admin/password-reset/confirm');
    assert.ok(confirm.security === undefined || confirm.security.length === 0);
    for (const status of ['204', '403', '422', '429']) assert.ok(confirm.responses[status], status);
  });

  test('the route list under test matches the real router', () => {
    for (const route of [
      ...ADMIN_ROUTES.map((r) => ({ method: r.method, path: r.openapi.replace(/\{(\w+)\}/g, ':$1') })),
      ...OPS_ROUTES,
    ]) {
      assert.ok(t.app.hasRoute({ method: route.method, url: route.path }), `${route.method} ${route.path}`);
    }
  });

  test('documents every registered route except the docs pages and the console files', () => {
    const routes = routesOf(t.app.printRoutes({ commonPrefix: false }));
    assert.ok(routes.some((route) => route.path === '/api/v1/admin/agents/:id' && route.method === 'PATCH'));
    // CORS preflights (OPTIONS on the widget surface) are not API operations, nor are the
    // console's static files under /admin (its API is /api/v1/admin).
    const isConsoleFile = (path: string) => path === '/admin' || /^\/admin[/*]/.test(path);
    const served = routes.filter(
      (route) =>
        route.method !== 'HEAD' &&
        route.method !== 'OPTIONS' &&
        !route.path.startsWith('/docs') &&
        !isConsoleFile(route.path),
    );
    assert.ok(served.length >= ADMIN_ROUTES.length + OPS_ROUTES.length, JSON.stringify(served));
    for (const route of served) operation(route.method, route.path);
    const documented = Object.entries(doc.paths)
      .filter(([path]) => !isConsoleFile(path))
      .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    assert.deepEqual(
      documented.sort(),
      served.map((route) => `${route.method} ${toOpenApi(route.path)}`).sort(),
    );
  });

  test('admin routes (read from the router) declare a bearer token or a session cookie, and their error answers', () => {
    const admin = adminRoutesOf(t.app.printRoutes({ commonPrefix: false }));
    // The hand-kept list of the auth tests is a subset of what the router serves.
    for (const route of ADMIN_ROUTES) {
      assert.ok(
        admin.some((r) => r.method === route.method && toOpenApi(r.path) === route.openapi),
        `${route.method} ${route.openapi} is not served`,
      );
    }
    const checked = admin.filter((route) => !SESSION_ROUTES.has(`${route.method} ${route.path}`));
    // Routes the hand-kept list lacks are checked too (the two-factor ones, for example).
    assert.ok(checked.some((route) => route.path === '/api/v1/admin/me/two-factor/confirm'));
    assert.ok(checked.length >= ADMIN_ROUTES.length, JSON.stringify(checked));
    const problems: string[] = [];
    for (const route of checked) {
      const path = toOpenApi(route.path);
      const name = `${route.method} ${path}`;
      const op = operation(route.method, route.path);
      if (JSON.stringify(op.security) !== JSON.stringify([{ bearerAuth: [] }, { sessionCookie: [] }])) {
        problems.push(`${name}: security ${JSON.stringify(op.security)}`);
      }
      for (const status of ['401', '403', '422', '429']) {
        if (!op.responses[status]) problems.push(`${name} lacks ${status}`);
      }
      if (path.endsWith('{id}')) {
        if (!op.responses['404']) problems.push(`${name} lacks 404`);
        const param = op.parameters?.find((p) => p.in === 'path' && p.name === 'id');
        if (param?.required !== true) problems.push(`${name}: path id not required`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test('ops routes are public', () => {
    for (const route of OPS_ROUTES) {
      const op = operation(route.method, route.path);
      assert.ok(op.security === undefined || op.security.length === 0, route.path);
      assert.ok(op.responses['200']);
    }
  });

  test('request bodies are closed: unknown and privileged fields are not documented as accepted', () => {
    const body = (method: string, path: string) => {
      const schema = operation(method, path).requestBody?.content['application/json'].schema;
      assert.ok(schema, `${method} ${path} has no JSON body`);
      assert.equal(schema.additionalProperties, false, `${method} ${path} accepts unknown fields`);
      return ZSchema.parse(schema.properties);
    };
    assert.deepEqual(Object.keys(body('PATCH', '/api/v1/admin/me')).sort(), ['email', 'name']);
    const agentBodies: Array<[string, string]> = [
      ['POST', '/api/v1/admin/agents'],
      ['PATCH', '/api/v1/admin/agents/{id}'],
    ];
    for (const [method, path] of agentBodies) {
      const properties = body(method, path);
      for (const field of ['id', 'workspace_id', 'created_at', 'updated_at'])
        assert.ok(!(field in properties));
    }
    assert.deepEqual(Object.keys(body('POST', '/api/v1/admin/tokens')).sort(), ['abilities', 'name']);
  });

  test('only token creation documents the plaintext token and signing secret', () => {
    const dataProperties = (method: string, path: string, status: string) => {
      const schema = operation(method, path).responses[status]?.content?.['application/json']?.schema;
      const data = ZSchema.parse(ZSchema.parse(schema?.properties).data);
      const items = data.type === 'array' ? ZSchema.parse(data.items) : data;
      return Object.keys(ZSchema.parse(items.properties));
    };
    const created = dataProperties('POST', '/api/v1/admin/tokens', '201');
    assert.ok(created.includes('token') && created.includes('shopper_signing_secret'));
    const listings: Array<[string, string]> = [
      ['GET', '/api/v1/admin/tokens'],
      ['DELETE', '/api/v1/admin/tokens/{id}'],
    ];
    for (const [method, path] of listings) {
      const listed = dataProperties(method, path, '200');
      for (const secret of ['token', 'token_hash', 'shopper_signing_secret']) {
        assert.ok(!listed.includes(secret), `${method} ${path} documents ${secret}`);
      }
    }
  });
});
