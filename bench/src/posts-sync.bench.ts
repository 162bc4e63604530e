/**
 * Posts sync: the site plugin's `POST /api/v1/wp/posts/sync` with a full batch of 50 posts,
 * measured side by side with a bare Fastify that receives the same body, in one run on one
 * machine, so the numbers read as ratios.
 *
 * Scenarios: (1) bare Fastify `POST /` parsing the 50-post JSON body and answering
 * `{ok:true}`; (2) the service's signed posts sync where every post's `content_hash` equals
 * the stored one (the batch was synced once before), so all 50 are `skipped_unchanged`;
 * (3) the same batch with every hash changed on every request, so all 50 are upserted and
 * their index jobs sent. Every request is signed afresh (`t` = now) in autocannon's worker by
 * `sign-sync-request.ts`. Issue 3's target: the unchanged batch at ≥ 200 batches/s on the
 * embedded store; the run reports it as met or not, informationally.
 *
 * Run: `npm run bench:sync` (BENCH_SECONDS overrides the 5 s per scenario). No pass/fail on
 * time; it exits non-zero only when a scenario answered anything but 2xx (or not what it
 * should), which would void its numbers.
 */
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import type { JobQueue } from '../../apps/server/src/queue/job-queue.js';
import { createApiToken } from '../../apps/server/src/services/accounts/api-tokens.js';
import { createAgent } from '../../apps/server/src/services/agents/agents.js';
import { HASH_MARKER, type SyncRequestContext, signSyncRequest } from './sign-sync-request.js';
import {
  createBenchApp,
  type EmbeddedStore,
  openEmbeddedStore,
  startBenchQueue,
} from './support/embedded-store.js';
import { hasKey, listenLocal } from './support/http.js';
import { describeRun, type LoadTarget, type Measurement, measure, readSeconds } from './support/load.js';
import { printComparison, reportFailures } from './support/report.js';

const POSTS = 50;
const SECONDS = readSeconds(process.env.BENCH_SECONDS, 5);
/** Issue 3's target for the unchanged batch on the embedded store. */
const TARGET_UNCHANGED_BATCHES_PER_SECOND = 200;
const SITE_URL = 'https://shop.example.com';
const SYNC_PATH = '/api/v1/wp/posts/sync';
/** autocannon's worker `require`s the per-request hook by path. */
const SIGN_MODULE = fileURLToPath(new URL('./sign-sync-request.ts', import.meta.url));

/** One thing to load: where, what to send, and what a correct answer looks like. */
type Scenario = {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Signed scenarios: signed per request (and rehashed when `rehash`) by sign-sync-request.ts. */
  signed: SyncRequestContext | null;
  check(body: unknown): boolean;
  /** After the load: what the store must show, or a description of what is wrong. */
  afterLoad?: () => Promise<string | null>;
};

/** The embedded store, queue and app the service runs over, seeded, and how to remove them. */
type ServiceFixture = {
  app: FastifyInstance;
  store: EmbeddedStore;
  queue: JobQueue;
  agentId: string;
  token: string;
};

const WORDS = (
  'order shipping delivery return refund size fabric cotton wool care wash colour stock warehouse ' +
  'customer account checkout payment invoice parcel courier tracking week day express standard ' +
  'free over under within guarantee repair exchange voucher gift store opening hours team help ' +
  'question answer product range season collection material quality recycled sustainable local'
).split(' ');

/** A deterministic sentence of 8–19 words. */
function sentence(seed: number): string {
  const length = 8 + (seed % 12);
  const words: string[] = [];
  for (let i = 0; i < length; i += 1) words.push(WORDS[(seed * 7 + i * 13) % WORDS.length] ?? 'text');
  const text = words.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function paragraph(seed: number, sentences: number): string {
  return Array.from({ length: sentences }, (_, i) => sentence(seed + i)).join(' ');
}

/**
 * Post HTML as WordPress's block editor stores it, about 2–4 KB: block comments, headings,
 * paragraphs with links and emphasis, a list, an image in a figure, sometimes a table.
 */
function postHtml(index: number): string {
  const target = 1900 + ((index * 389) % 1600);
  const blocks: string[] = [
    `<!-- wp:paragraph -->\n<p>${paragraph(index, 3)} See <a href="${SITE_URL}/help/${index}">our help pages</a> for <strong>details</strong>.</p>\n<!-- /wp:paragraph -->`,
    `<!-- wp:image {"id":${1000 + index}} -->\n<figure class="wp-block-image size-large"><img src="${SITE_URL}/wp-content/uploads/2026/01/photo-${index}.jpg" alt="Photo ${index}" class="wp-image-${1000 + index}"/><figcaption>${sentence(index + 3)}</figcaption></figure>\n<!-- /wp:image -->`,
  ];
  let part = 0;
  while (blocks.join('\n\n').length < target) {
    part += 1;
    const seed = index * 31 + part * 17;
    if (part % 4 === 1) {
      blocks.push(
        `<!-- wp:heading -->\n<h2 class="wp-block-heading">Section ${part}: ${WORDS[seed % WORDS.length]} and ${WORDS[(seed + 5) % WORDS.length]}</h2>\n<!-- /wp:heading -->`,
      );
    } else if (part % 4 === 3) {
      const items = [0, 1, 2, 3].map((i) => `<li>${sentence(seed + i)}</li>`).join('');
      blocks.push(`<!-- wp:list -->\n<ul class="wp-block-list">${items}</ul>\n<!-- /wp:list -->`);
    } else if (part === 6 && index % 3 === 0) {
      const rows = [1, 2, 3]
        .map(
          (i) =>
            `<tr><td>${WORDS[(seed + i) % WORDS.length]}</td><td>${i * 3} days</td><td>€${i * 4}.90</td></tr>`,
        )
        .join('');
      blocks.push(
        `<!-- wp:table -->\n<figure class="wp-block-table"><table><thead><tr><th>Option</th><th>Time</th><th>Price</th></tr></thead><tbody>${rows}</tbody></table></figure>\n<!-- /wp:table -->`,
      );
    } else {
      blocks.push(
        `<!-- wp:paragraph -->\n<p>${paragraph(seed, 4)} <em>${sentence(seed + 9)}</em></p>\n<!-- /wp:paragraph -->`,
      );
    }
  }
  return blocks.join('\n\n');
}

/** The batch the plugin sends; each hash starts with HASH_MARKER, which the rehashing scenario replaces. */
function postsBody(agentId: string): string {
  const posts = Array.from({ length: POSTS }, (_, i) => {
    const wpId = i + 1;
    return {
      wp_id: wpId,
      post_type: wpId % 5 === 0 ? 'page' : 'post',
      permalink: `${SITE_URL}/blog/post-${wpId}/`,
      title: `Post ${wpId}: ${sentence(wpId).slice(0, -1)}`,
      content_html: postHtml(wpId),
      excerpt: sentence(wpId + 1),
      content_hash: `${HASH_MARKER}${wpId.toString(16).padStart(8, '0')}`,
      modified_at: `2026-01-${String(1 + (wpId % 28)).padStart(2, '0')}T10:00:00+00:00`,
      language: 'en',
      taxonomy_terms: ['news', WORDS[wpId % WORDS.length] ?? 'misc'],
    };
  });
  return JSON.stringify({ agent_id: agentId, site_url: SITE_URL, plugin_version: '1.4.2', posts });
}

/** The baseline: Fastify parsing the same JSON body, with nothing of ours on top. */
async function createBareApp(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  app.post('/', async () => ({ ok: true }));
  return app;
}

/**
 * The real app (createApp) over a fresh embedded store on disk, as `DATA_DIR` would hold it,
 * with a real job queue that accepts jobs but runs none (the index jobs stay queued, as on a
 * service whose worker is busy elsewhere), seeded through the services the CLI uses. The
 * per-token throttle (60/min by default) is raised to its maximum so it does not cap the run.
 */
async function createServiceFixture(): Promise<ServiceFixture> {
  const store = await openEmbeddedStore({ WP_THROTTLE_PER_MINUTE: '100000' });
  const queue = await startBenchQueue(store);
  const agent = await createAgent(
    { ...store.scope, queue },
    { name: 'Shop agent', allowed_origins: [SITE_URL], system_prompt: 'You help visitors of the shop.' },
  );
  const token = await createApiToken(store.scope, { name: 'shop site', abilities: ['wp:integration'] });
  const app = await createBenchApp(store, queue);
  return { app, store, queue, agentId: agent.id, token: token.token };
}

/** Sends one request of a scenario, signed as the load will sign it. */
async function sendOnce(scenario: Scenario): Promise<{ status: number; body: unknown }> {
  let headers = scenario.headers;
  let body = scenario.body;
  if (scenario.signed) {
    const signed = signSyncRequest({ method: 'POST', headers, body }, scenario.signed);
    body = typeof signed.body === 'string' ? signed.body : scenario.body;
    headers = { ...headers };
    for (const [name, value] of Object.entries(signed.headers ?? {})) {
      if (typeof value === 'string') headers[name] = value;
    }
  }
  const response = await fetch(scenario.url, { method: 'POST', headers, body });
  return { status: response.status, body: await response.json() };
}

/** One request before loading, so a 401, a 422 or the wrong counts are never benchmarked by mistake. */
async function verify(scenario: Scenario): Promise<void> {
  const answer = await sendOnce(scenario);
  if (answer.status !== 200 || !scenario.check(answer.body)) {
    throw new Error(`${scenario.name}: unexpected answer ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

/** What autocannon sends for a scenario; signed ones are signed (and rehashed) per request. */
function loadTarget(scenario: Scenario): LoadTarget {
  return {
    url: scenario.url,
    // Signing (and rehashing) happens in the load generator's thread, not the server's.
    requests: [
      {
        method: 'POST',
        headers: scenario.headers,
        body: scenario.body,
        ...(scenario.signed ? { setupRequest: SIGN_MODULE } : {}),
      },
    ],
    ...(scenario.signed ? { initialContext: scenario.signed } : {}),
  };
}

/** `{data: {queued, skipped_unchanged, deleted, failed}}` with the expected counts (none failed). */
function syncResult(expected: { queued: number; skipped_unchanged: number }) {
  return (body: unknown): boolean => {
    if (!hasKey(body, 'data')) return false;
    const data = body.data;
    return (
      hasKey(data, 'queued') &&
      hasKey(data, 'skipped_unchanged') &&
      hasKey(data, 'deleted') &&
      data.queued === expected.queued &&
      data.skipped_unchanged === expected.skipped_unchanged &&
      data.deleted === 0 &&
      hasKey(data, 'failed') &&
      data.failed === 0
    );
  };
}

/** How many of the agent's documents still carry the body template's original hashes. */
async function documentsWithOriginalHash(
  service: ServiceFixture,
): Promise<{ total: number; original: number }> {
  const rows = await service.store.database.db
    .selectFrom('documents')
    .select('content_hash')
    .where('agent_id', '=', service.agentId)
    .execute();
  return {
    total: rows.length,
    original: rows.filter((row) => row.content_hash.startsWith(HASH_MARKER)).length,
  };
}

async function main(): Promise<number> {
  const bare = await createBareApp();
  let service: ServiceFixture | null = null;
  try {
    service = await createServiceFixture();
    const fixture = service;
    const body = postsBody(fixture.agentId);
    const htmlBytes = Array.from({ length: POSTS }, (_, i) => Buffer.byteLength(postHtml(i + 1)));
    console.log(describeRun('Posts sync', SECONDS));
    console.log(
      `Batch: ${POSTS} posts, ${(Buffer.byteLength(body) / 1024).toFixed(0)} KB of JSON; post HTML ` +
        `${(Math.min(...htmlBytes) / 1024).toFixed(1)}–${(Math.max(...htmlBytes) / 1024).toFixed(1)} KB`,
    );
    const bareUrl = await listenLocal(bare);
    const serviceUrl = await listenLocal(fixture.app);
    const json = { 'content-type': 'application/json' };
    const syncHeaders = { ...json, authorization: `Bearer ${fixture.token}` };

    // The first sync stores the batch (all 50 queued); from then on its hashes are unchanged.
    const prime = await sendOnce({
      name: 'first sync',
      url: `${serviceUrl}${SYNC_PATH}`,
      headers: syncHeaders,
      body,
      signed: { rehash: false },
      check: () => true,
    });
    if (prime.status !== 200 || !syncResult({ queued: POSTS, skipped_unchanged: 0 })(prime.body)) {
      throw new Error(`first sync: unexpected answer ${prime.status} ${JSON.stringify(prime.body)}`);
    }

    const scenarios: Scenario[] = [
      {
        name: `bare Fastify POST / (${POSTS} posts parsed)`,
        url: `${bareUrl}/`,
        headers: json,
        body,
        signed: null,
        check: (answer) => hasKey(answer, 'ok') && answer.ok === true,
      },
      {
        name: `posts/sync, ${POSTS} unchanged`,
        url: `${serviceUrl}${SYNC_PATH}`,
        headers: syncHeaders,
        body,
        signed: { rehash: false },
        check: syncResult({ queued: 0, skipped_unchanged: POSTS }),
        async afterLoad() {
          const docs = await documentsWithOriginalHash(fixture);
          return docs.total === POSTS && docs.original === POSTS
            ? null
            : `expected ${POSTS} documents untouched, found ${docs.original} of ${docs.total}`;
        },
      },
      {
        name: `posts/sync, ${POSTS} changed`,
        url: `${serviceUrl}${SYNC_PATH}`,
        headers: syncHeaders,
        body,
        signed: { rehash: true },
        check: syncResult({ queued: POSTS, skipped_unchanged: 0 }),
        async afterLoad() {
          const docs = await documentsWithOriginalHash(fixture);
          return docs.total === POSTS && docs.original === 0
            ? null
            : `expected all ${POSTS} documents rewritten, ${docs.original} of ${docs.total} still original`;
        },
      },
    ];

    const rows: Measurement[] = [];
    for (const scenario of scenarios) {
      await verify(scenario);
      const measured = await measure(scenario.name, loadTarget(scenario), SECONDS);
      measured.problem = scenario.afterLoad ? await scenario.afterLoad() : null;
      console.log(
        `  ${scenario.name}: ${measured.requestsPerSecond.toFixed(0)} batches/s, ` +
          `${(measured.requestsPerSecond * POSTS).toFixed(0)} posts/s`,
      );
      rows.push(measured);
    }

    printComparison(rows, {
      rateTitle: 'batches/s (mean)',
      extraColumns: [{ title: 'posts/s', cell: (row) => (row.requestsPerSecond * POSTS).toFixed(0) }],
    });
    const unchanged = rows[1]?.requestsPerSecond ?? 0;
    console.log(
      `Target (issue 3): unchanged batch ≥ ${TARGET_UNCHANGED_BATCHES_PER_SECOND} batches/s on the embedded store: ` +
        `${unchanged >= TARGET_UNCHANGED_BATCHES_PER_SECOND ? 'met' : 'not met'} (measured ${unchanged.toFixed(0)})`,
    );

    return reportFailures(rows);
  } finally {
    await bare.close();
    if (service) {
      await service.app.close();
      await service.queue.stop(1_000);
      await service.store.close();
    }
  }
}

process.exitCode = await main();
