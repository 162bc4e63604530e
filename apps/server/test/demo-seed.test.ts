import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ZWidgetAnswer } from '@service/contract';
import { DATA_COMMANDS } from '../src/cli/commands.js';
import { AppError } from '../src/errors/app-error.js';
import { createLogger } from '../src/logger.js';
import { seedDemo } from '../src/services/ops/demo-seed.js';
import { expectData } from './support/http.js';
import { indexSource } from './support/sources.js';
import { createTestApp, seedTenant, type TestApp } from './support/test-app.js';
import { initSession, widgetCall } from './support/widget.js';

const SITE = 'http://localhost:8080';

describe('the demo seed', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  const seed = (origins: string[]) => {
    return seedDemo({
      db: t.database.db,
      clock: t.clock,
      queue: t.queue,
      appKey: t.config.appKey,
      origins,
      log: createLogger('silent'),
    });
  };

  test('an empty store gets a labelled demo workspace whose agent answers from the sample knowledge at /demo', async () => {
    const seeded = await seed([SITE]);
    assert.ok(seeded?.created);
    const workspace = await t.database.db
      .selectFrom('workspaces')
      .select(['name', 'slug'])
      .executeTakeFirstOrThrow();
    assert.deepEqual(workspace, { name: 'Demo (sample data)', slug: 'demo' });
    const source = await t.database.db
      .selectFrom('sources')
      .select('id')
      .where('agent_id', '=', seeded.agentId)
      .executeTakeFirstOrThrow();
    await indexSource(t, source.id);

    const page = await t.app.inject({ method: 'GET', url: '/demo' });
    assert.equal(page.statusCode, 200);
    assert.match(
      page.body,
      new RegExp(`<script src="/widget/widget\\.js[^"]*" data-agent-id="${seeded.agentId}" async></script>`),
    );
    assert.ok(page.headers['content-security-policy'], 'a web page keeps its security headers');

    const session = await initSession(t, seeded.agentId, {}, SITE);
    const answer = expectData(
      await widgetCall(
        t,
        'POST',
        '/v1/widget/messages',
        session.token,
        { message: 'Can I return an opened bag of coffee?' },
        { origin: SITE },
      ),
      200,
      ZWidgetAnswer,
    );
    assert.match(answer.text, /Opened coffee cannot be returned/);
    assert.deepEqual(
      answer.citations.map((c) => c.title),
      ['Northwind Coffee FAQ (sample)'],
    );
  });

  test('demo:connect allows a local shop origin on the demo agent and issues a working integration token', async () => {
    const ctx = { config: t.config, database: t.database, clock: t.clock, log: createLogger('silent') };
    const first = await DATA_COMMANDS['demo:connect'](ctx, { origin: ' http://LOCALHOST:4100/ ' });
    const again = await DATA_COMMANDS['demo:connect'](ctx, { origin: 'http://localhost:4100' });
    assert.notEqual(first.token, again.token, 'each call issues a fresh token');
    const agent = await t.database.db
      .selectFrom('agents')
      .select('allowed_origins')
      .where('id', '=', first.agent_id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(agent.allowed_origins, [SITE, 'http://localhost:4100'], 'added once, normalised');
    // /demo shows that shop's product images in the widget's cards: its policy lets them in.
    const demo = await t.app.inject({ method: 'GET', url: '/demo' });
    const imgSrc = String(demo.headers['content-security-policy'])
      .split('; ')
      .find((directive) => directive.startsWith('img-src '));
    assert.equal(imgSrc, `img-src 'self' data: https: ${SITE} http://localhost:4100`);
    const handshake = await t.app.inject({
      method: 'POST',
      url: '/api/v1/wp/handshake',
      headers: { authorization: `Bearer ${first.token}` },
      payload: {
        site_url: 'http://localhost:4100',
        plugin_version: '0.1.0',
        commerce_active: true,
        cms_version: 'demo',
      },
    });
    assert.equal(handshake.statusCode, 200, handshake.body);
    assert.match(handshake.body, new RegExp(first.agent_id));
    assert.match(handshake.body, /"abilities":\["wp:integration"\]/);

    for (const origin of ['localhost:4100', 'http://localhost:4100/path', '*', 'javascript:alert(1)']) {
      await assert.rejects(
        DATA_COMMANDS['demo:connect'](ctx, { origin }),
        (error: unknown) => error instanceof AppError && error.code === 'validation_failed',
        origin,
      );
    }
  });

  test('a later start adds the new origin and seeds nothing twice; a store with other workspaces and no demo is left alone', async () => {
    const again = await seed(['http://localhost:9000']);
    assert.equal(again?.created, false);
    const agent = await t.database.db
      .selectFrom('agents')
      .select('allowed_origins')
      .where('id', '=', again?.agentId ?? '')
      .executeTakeFirstOrThrow();
    assert.deepEqual(agent.allowed_origins, [SITE, 'http://localhost:4100', 'http://localhost:9000']);
    assert.equal((await t.database.db.selectFrom('workspaces').select('id').execute()).length, 1);

    await t.database.db.deleteFrom('workspaces').where('slug', '=', 'demo').execute();
    await seedTenant(t, 'Acme');
    assert.equal(await seed([SITE]), null);
    await assert.rejects(
      DATA_COMMANDS['demo:connect'](
        { config: t.config, database: t.database, clock: t.clock, log: createLogger('silent') },
        { origin: SITE },
      ),
      (error: unknown) =>
        error instanceof AppError && error.code === 'not_found' && /DEMO_SEED/.test(error.message),
    );
    assert.equal((await t.app.inject({ method: 'GET', url: '/demo' })).statusCode, 404);
  });
});
