// The service (real app on a cloned database, on loopback) with the demo shop's content synced
// through the site plugin and indexed, and a visitor's side of the widget API.
import assert from 'node:assert/strict';
import { ZWidgetAnswer, ZWidgetInitResponse } from '@service/contract';
import { z } from 'zod';
import { createAgent, runIndexJob } from '../../../../apps/server/test/support/site-sync.js';
import {
  createTestApp,
  issueToken,
  seedTenant,
  type TestApp,
} from '../../../../apps/server/test/support/test-app.js';
import { type DemoShop, startDemoShop } from '../../src/index.js';
import { freePort } from './loopback.js';

const ZData = <T extends z.ZodType>(data: T) => z.object({ data });

/** A running service holding the indexed demo shop, and how to talk to its widget API. */
export type IndexedDemo = {
  t: TestApp;
  shop: DemoShop;
  agentId: string;
  /** A new widget session in `locale`; returns its token and conversation. */
  session(locale: string): Promise<{ token: string; conversationId: string }>;
  ask(token: string, message: string): Promise<z.output<typeof ZWidgetAnswer>>;
  /** The stored status of a conversation. */
  status(conversationId: string): Promise<string>;
  close(): Promise<void>;
};

/** Starts the service (with `env`) and the demo shop (default seed), syncs and indexes everything. */
export async function startIndexedDemo(env: Record<string, string> = {}): Promise<IndexedDemo> {
  const shopPort = await freePort();
  const shopOrigin = `http://127.0.0.1:${shopPort}`;
  const t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${shopPort}`, ...env } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no service port');
  const base = `http://127.0.0.1:${address.port}`;
  const tenant = await seedTenant(t, 'Northwind Coffee Roasters');
  const agentId = await createAgent(t, tenant, {
    name: 'Northwind assistant',
    is_published: true,
    allowed_origins: [shopOrigin],
    widget_features: { leads: true, human: true, satisfaction: false },
  });
  const { token } = await issueToken(t, tenant, ['wp:integration']);
  const shop = await startDemoShop({
    serviceUrl: base,
    apiToken: token,
    agentId,
    port: shopPort,
    dataDir: null,
    syncOnStart: false,
    log: () => {},
  });
  await shop.syncNow();
  const documents = await t.database.db
    .selectFrom('documents')
    .select('id')
    .where('agent_id', '=', agentId)
    .execute();
  for (const document of documents) await runIndexJob(t, document.id);
  assert.ok(documents.length >= 30, 'the demo content was synced');

  const widget = async (path: string, bearer: string | null, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        origin: shopOrigin,
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify(body),
    });
    const json: unknown = await response.json();
    assert.equal(response.status, 200, JSON.stringify(json));
    return json;
  };
  return {
    t,
    shop,
    agentId,
    async session(locale) {
      const data = ZData(ZWidgetInitResponse).parse(
        await widget('/v1/widget/init', null, {
          agent_id: agentId,
          anon_id: `anon_${Math.random().toString(36).slice(2)}`,
          locale,
        }),
      ).data;
      return { token: data.token, conversationId: data.conversation_id };
    },
    async ask(bearer, message) {
      return ZData(ZWidgetAnswer).parse(await widget('/v1/widget/messages', bearer, { message })).data;
    },
    async status(conversationId) {
      const row = await t.database.db
        .selectFrom('conversations')
        .select('status')
        .where('id', '=', conversationId)
        .executeTakeFirstOrThrow();
      return row.status;
    },
    async close() {
      await shop.close();
      await t.close();
    },
  };
}
