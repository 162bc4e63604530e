import type { AddressInfo } from 'node:net';
import type { Json } from '../../../../server/test/support/site-sync.js';
import { createTestApp, type Tenant, type TestApp } from '../../../../server/test/support/test-app.js';
import { createWidgetAgent } from '../../../../server/test/support/widget.js';

// The real service (createTestApp on a cloned database) listening on 127.0.0.1 with a random
// port, serving the built widget from apps/widget/dist.

/** A listening service. */
export type Service = {
  t: TestApp;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  close(): Promise<void>;
};

/** Builds the app with `env` and listens on loopback. */
export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const t = await createTestApp({ env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address: AddressInfo | string | null = t.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the service has no TCP port');
  return { t, base: `http://127.0.0.1:${address.port}`, close: () => t.close() };
}

/** A published agent that allows only the host site's origin (plus `agent` settings). */
export function hostAgent(
  service: Service,
  hostOrigin: string,
  agent: Json = {},
): Promise<{ tenant: Tenant; agentId: string }> {
  return createWidgetAgent(service.t, { allowed_origins: [hostOrigin], ...agent });
}

/**
 * Reads `read()` until `done` holds, at most `timeoutMs` (a bounded wait for rows the widget
 * writes asynchronously); returns the last value read, which the caller then asserts on.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}

/** The agent's stored widget events of one kind, oldest first. */
export function widgetEvents(
  service: Service,
  agentId: string,
  kind: string,
): Promise<Array<{ conversation_id: string; data: Record<string, unknown> }>> {
  return service.t.database.db
    .selectFrom('widget_events')
    .select(['conversation_id', 'data'])
    .where('agent_id', '=', agentId)
    .where('kind', '=', kind)
    .orderBy('created_at')
    .execute();
}
