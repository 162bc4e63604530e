import type { WidgetAgent } from './widget-session.js';

// Init reads the published agent (with its coupon state) on every page view; this keeps it
// for a second per database. Bounded staleness, documented in docs/widget-api.md: the services
// that write what it holds (agents.ts: update, delete; sources.ts: update, delete; site-sync.ts:
// products and coupons) clear it in this process once their write commits; a change made in
// another process (another instance, the CLI) is seen within CACHE_MS. Only init
// uses it: every token route re-reads the agent, so an unpublished agent's tokens stop at once.

/** How long init may use a published agent it read, in milliseconds. */
export const WIDGET_AGENT_CACHE_MS = 1000;
/** Entries per database; over it, the cache starts again empty (a flood of ids cannot grow it). */
const MAX_ENTRIES = 1000;

type Entry = { value: WidgetAgent; expiresAt: number; generation: number };

const caches = new WeakMap<object, Map<string, Entry>>();
let generation = 0;

/** The cached published agent of `agentId` in `db`, if read less than a second ago and not cleared since. */
export function cachedWidgetAgent(db: object, agentId: string, now = performance.now()): WidgetAgent | null {
  const entry = caches.get(db)?.get(agentId);
  if (!entry) return null;
  if (entry.expiresAt > now && entry.generation === generation) return entry.value;
  caches.get(db)?.delete(agentId);
  return null;
}

/** The cache's generation: read it before the query whose answer is then cached with it. */
export function widgetAgentGeneration(): number {
  return generation;
}

/**
 * Keeps a published agent for init (unknown or unpublished agents are never cached). `readAt`
 * is the generation when its query started: an answer read across a clear is never served.
 */
export function cacheWidgetAgent(
  db: object,
  value: WidgetAgent,
  readAt: number,
  now = performance.now(),
): void {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(value.agent.id, { value, expiresAt: now + WIDGET_AGENT_CACHE_MS, generation: readAt });
}

/** Drops every cached agent (the services call it after a write to agents, sources or coupons commits). */
export function forgetWidgetAgents(): void {
  generation += 1;
}
