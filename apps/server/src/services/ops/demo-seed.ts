import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../errors/app-error.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { newId } from '../../security/ids.js';
import { createApiToken } from '../accounts/api-tokens.js';
import { createAgent } from '../agents/agents.js';
import type { TenantScope } from '../context.js';
import { createSource } from '../knowledge/sources.js';

/** The demo workspace's slug: `/demo` embeds the first published agent of this workspace. */
export const DEMO_WORKSPACE_SLUG = 'demo';
const DEMO_WORKSPACE_NAME = 'Demo (sample data)';

/** The demo's knowledge: a made-up coffee shop, so the demo answers questions a visitor would ask. */
const DEMO_KNOWLEDGE = `Northwind Coffee Roasters — sample data for the demo agent

Shipping
We roast on Mondays and Thursdays and ship every order within two business days of roasting. Delivery inside the EU takes three to five working days. Shipping is free for orders over 40 euros; below that it costs 4.90 euros.

Returns and refunds
Unopened bags can be returned within 30 days of delivery for a full refund. Opened coffee cannot be returned, but if a roast tastes wrong we replace it free of charge.

Our coffees
The House Blend is a medium roast with notes of chocolate and hazelnut, good for espresso and filter. The Ethiopia Yirgacheffe is a light roast with notes of jasmine and lemon, best for filter. Decaf Colombia is decaffeinated with the Swiss Water process, with no chemicals.

Grinding
Every coffee is sold as whole beans or ground for espresso, filter, French press or moka pot. We recommend whole beans: ground coffee loses most of its aroma within two weeks.

Opening hours of the roastery shop
The roastery shop in Lyon is open Tuesday to Saturday, 9:00 to 18:00. Tastings are held every Saturday at 11:00.`;

/** What seeding found or made. */
export type DemoSeed = { agentId: string; created: boolean };

/**
 * On an empty store, seeds a clearly labelled demo workspace with a published agent and a
 * little sample knowledge, so a newcomer can chat at `/demo` with no key. On later starts it
 * only makes sure the demo agent accepts the current origins (the port may have changed);
 * once any other workspace exists and the demo was removed, nothing is seeded again.
 */
export async function seedDemo(options: {
  db: Kysely<DB>;
  clock: Clock;
  queue: JobQueue;
  /** APP_KEY: sources are created through the one path that seals SQL passwords with it. */
  appKey: Buffer;
  origins: readonly string[];
  log: Pick<Logger, 'info'>;
}): Promise<DemoSeed | null> {
  const { db, clock } = options;
  const existing = await db
    .selectFrom('agents')
    .innerJoin('workspaces', 'workspaces.id', 'agents.workspace_id')
    .select(['agents.id', 'agents.allowed_origins'])
    .where('workspaces.slug', '=', DEMO_WORKSPACE_SLUG)
    .where('workspaces.name', '=', DEMO_WORKSPACE_NAME)
    .orderBy('agents.created_at')
    .executeTakeFirst();
  if (existing) {
    const missing = options.origins.filter((origin) => !existing.allowed_origins.includes(origin));
    if (missing.length > 0) {
      await db
        .updateTable('agents')
        .set({ allowed_origins: [...existing.allowed_origins, ...missing], updated_at: clock.now() })
        .where('id', '=', existing.id)
        .execute();
    }
    return { agentId: existing.id, created: false };
  }
  const anyWorkspace = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  if (anyWorkspace) return null;

  const workspaceId = newId();
  await db
    .insertInto('workspaces')
    .values({ id: workspaceId, name: DEMO_WORKSPACE_NAME, slug: DEMO_WORKSPACE_SLUG })
    .execute();
  const scope: TenantScope = { db, clock, workspaceId, actor: { type: 'system', id: null } };
  const agent = await createAgent(
    { ...scope, queue: options.queue },
    {
      name: 'Demo assistant',
      is_published: true,
      language_default: 'en',
      allowed_origins: [...options.origins],
      system_prompt: 'You are the demo assistant of a made-up coffee roaster. Say so if asked.',
    },
  );
  await createSource({ ...scope, queue: options.queue, appKey: options.appKey }, agent.id, {
    type: 'text',
    name: 'Northwind Coffee FAQ (sample)',
    text: DEMO_KNOWLEDGE,
  });
  options.log.info({ agent_id: agent.id }, 'seeded the demo workspace (set DEMO_SEED=false to skip)');
  return { agentId: agent.id, created: true };
}

/** The published agents of the seeded demo workspace, oldest first (a query to select from). */
function demoAgents(db: Kysely<DB>) {
  return db
    .selectFrom('agents')
    .innerJoin('workspaces', 'workspaces.id', 'agents.workspace_id')
    .where('workspaces.slug', '=', DEMO_WORKSPACE_SLUG)
    .where('workspaces.name', '=', DEMO_WORKSPACE_NAME)
    .where('agents.is_published', '=', true)
    .orderBy('agents.created_at');
}

/** The agent `/demo` embeds: the first published agent of the demo workspace, or null. */
export async function findDemoAgent(db: Kysely<DB>): Promise<string | null> {
  return (await findDemoEmbed(db))?.id ?? null;
}

/** The demo agent's id and allowed origins (its shop's product images show on /demo), or null. */
export async function findDemoEmbed(
  db: Kysely<DB>,
): Promise<{ id: string; allowedOrigins: string[] } | null> {
  const row = await demoAgents(db).select(['agents.id', 'agents.allowed_origins']).executeTakeFirst();
  return row ? { id: row.id, allowedOrigins: row.allowed_origins } : null;
}

/** What `demo:connect` gives the demo shop: a site-integration token and the agent to embed. */
export type DemoShopConnection = { token: string; token_id: string; agent_id: string; workspace_id: string };

/**
 * Connects a local demo shop to the demo workspace: adds the shop's origin to the demo agent's
 * allowed origins and issues a `wp:integration` token (plaintext returned once). Only the
 * seeded demo workspace is ever touched; without it this is `not_found`.
 */
export async function connectDemoShop(options: {
  db: Kysely<DB>;
  clock: Clock;
  origin: string;
}): Promise<DemoShopConnection> {
  const { db, clock } = options;
  const agent = await demoAgents(db)
    .select(['agents.id', 'agents.workspace_id', 'agents.allowed_origins'])
    .executeTakeFirst();
  if (!agent) {
    throw new AppError('not_found', {
      message:
        'No demo workspace: start the service on the embedded store with DEMO_SEED=true (the default) first.',
    });
  }
  const agentId = agent.id;
  if (!agent.allowed_origins.includes(options.origin)) {
    await db
      .updateTable('agents')
      .set({ allowed_origins: [...agent.allowed_origins, options.origin], updated_at: clock.now() })
      .where('id', '=', agentId)
      .execute();
  }
  const token = await createApiToken(
    { db, clock, workspaceId: agent.workspace_id, actor: { type: 'cli', id: null } },
    { name: `Demo shop (${options.origin})`, abilities: ['wp:integration'] },
  );
  return { token: token.token, token_id: token.id, agent_id: agentId, workspace_id: agent.workspace_id };
}
