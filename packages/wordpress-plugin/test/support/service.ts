// The real service on the embedded store for the WordPress tests, as the demo shop's tests run
// it: the app listening on loopback with a job worker in this process, one workspace with a
// published agent that allows the WordPress origin, and an API token with `wp:integration`.
// SAFE_URL_ALLOW names the WordPress address, so the service may call the plugin routes
// (lead push, coupon apply, order lookup) on loopback, as a development setup would.
import assert from 'node:assert/strict';
import { createAgent, UNTHROTTLED } from '../../../../apps/server/test/support/site-sync.js';
import {
  issueToken,
  seedTenant,
  type Tenant,
  workerServices,
} from '../../../../apps/server/test/support/test-app.js';
import {
  eventually,
  type Service,
  startService,
} from '../../../../apps/widget/test/browser/support/service.js';
import { phpString, type WordPress } from './wordpress.js';

export { eventually };

/** The service, its workspace, agent and integration token. */
export type WpService = {
  service: Service;
  base: string;
  port: number;
  tenant: Tenant;
  workspaceName: string;
  agentId: string;
  agentName: string;
  /** The `wp:integration` API token the plugin is given. */
  token: string;
  /** POST /api/v1/admin/agents/{id}/search: the titles (and urls) of the hits for `query`. */
  search(query: string): Promise<Array<{ title: string; url: string | null; text: string }>>;
  /** Documents stored for the agent, by kind (`post`, `page`, `product`). */
  documentCount(kind?: string): Promise<number>;
  /** Documents of the agent not indexed yet. */
  pendingCount(): Promise<number>;
  /** Waits (bounded) until every stored document is indexed. */
  waitIndexed(timeoutMs?: number): Promise<void>;
  /** POST /api/v1/wp/handshake with the token, as the plugin's "Test connection" does; returns `data`. */
  handshake(siteUrl: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
};

/** Starts the service for a WordPress that will listen on `wpPort`. */
export async function startWpService(wpPort: number): Promise<WpService> {
  const wpOrigin = `http://127.0.0.1:${wpPort}`;
  const service = await startService({ SAFE_URL_ALLOW: `127.0.0.1:${wpPort}`, ...UNTHROTTLED });
  const { t } = service;
  await t.queue.work(workerServices(t), { pollingIntervalSeconds: 0.5 });
  const workspaceName = 'Harness Coffee Roasters';
  const agentName = 'Journal assistant';
  const tenant = await seedTenant(t, workspaceName);
  const agentId = await createAgent(t, tenant, {
    name: agentName,
    is_published: true,
    allowed_origins: [wpOrigin],
    widget_features: { leads: true, human: false, satisfaction: false },
  });
  const { token } = await issueToken(t, tenant, ['wp:integration']);
  const base = service.base;

  const documentCount = async (kind?: string) => {
    let query = t.database.db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('agent_id', '=', agentId);
    if (kind) query = query.where('kind', '=', kind);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  const pendingCount = async () =>
    Number(
      (
        await t.database.db
          .selectFrom('documents')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('agent_id', '=', agentId)
          .where('index_status', '!=', 'indexed')
          .executeTakeFirstOrThrow()
      ).n,
    );

  return {
    service,
    base,
    port: Number(new URL(base).port),
    tenant,
    workspaceName,
    agentId,
    agentName,
    token,
    async search(query) {
      const response = await fetch(`${base}/api/v1/admin/agents/${agentId}/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...tenant.auth },
        body: JSON.stringify({ query, limit: 20 }),
      });
      const body = (await response.json()) as {
        data?: { hits?: Array<{ title?: string; url?: string | null; text?: string; content?: string }> };
      };
      assert.equal(response.status, 200, JSON.stringify(body));
      return (body.data?.hits ?? []).map((hit) => ({
        title: hit.title ?? '',
        url: hit.url ?? null,
        text: hit.text ?? hit.content ?? '',
      }));
    },
    documentCount,
    pendingCount,
    async waitIndexed(timeoutMs = 120_000) {
      const left = await eventually(pendingCount, (n) => n === 0, timeoutMs);
      assert.equal(left, 0, 'every synced document was indexed');
    },
    async handshake(siteUrl) {
      const response = await fetch(`${base}/api/v1/wp/handshake`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          site_url: siteUrl,
          plugin_version: '0.1.0',
          commerce_active: false,
          cms_version: '6.1',
        }),
      });
      const body = (await response.json()) as { data?: Record<string, unknown> };
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.ok(body.data, 'the handshake answered data');
      return body.data;
    },
    close: () => service.close(),
  };
}

/** The handshake's shopper signing secret. */
export function signingSecretOf(handshake: Record<string, unknown>): string {
  const token = handshake.token as { shopper_signing_secret?: unknown } | undefined;
  assert.equal(typeof token?.shopper_signing_secret, 'string');
  return String(token?.shopper_signing_secret);
}

/**
 * Connects the plugin without its settings page (the browser test covers the page): the
 * options the page would save, and the handshake's data as "Test connection" stores it.
 */
export async function connectPlugin(
  wp: WordPress,
  svc: WpService,
  options: { widget?: boolean } = {},
): Promise<Record<string, unknown>> {
  const handshake = await svc.handshake(wp.url);
  const json = Buffer.from(JSON.stringify(handshake)).toString('base64');
  await wp.php(`
    update_option('chat_agent_service_url', ${phpString(svc.base)});
    update_option('chat_agent_api_token', ${phpString(svc.token)});
    update_option('chat_agent_agent_id', ${phpString(svc.agentId)});
    update_option('chat_agent_widget_enabled', ${phpString(options.widget === false ? '0' : '1')});
    update_option('chat_agent_handshake', json_decode(base64_decode(${phpString(json)}), true));
    return true;
  `);
  return handshake;
}
