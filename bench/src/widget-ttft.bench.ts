/**
 * Time to first token: what the service adds between a visitor's question and the first
 * `event: token` frame of `POST /v1/widget/messages/stream`, measured side by side with the
 * model itself, in one run.
 *
 * The model is a fake OpenAI-compatible upstream on loopback (`support/fake-openai.ts`) that
 * streams its answer at once; the service is the real app (createApp) over a fresh embedded
 * store with LLM_PROVIDER=openai, LLM_BASE_URL=<the fake>, LLM_API_KEY=x. The agent has an admin
 * `text` source indexed by the real index and embedding jobs (full-text, trigram and HNSW
 * indexes present, hashed 256-d embedder as the service uses without an embeddings API), so
 * every question does real retrieval.
 *
 * Per request: the service's time from sending the stream request to its first `event: token`
 * frame, and the upstream's time from sending it the very body the service sent (captured by
 * the fake) to its first content chunk. Sequential: 300 requests after 30 of warm-up, service
 * and upstream interleaved; concurrent: 10 in flight (10 visitors), 300 after 30, service
 * phase then upstream phase. Overhead = service − upstream at each percentile.
 *
 * Run: `npm run bench:ttft` (`-- --requests 300 --warmup 30 --concurrency 10`). Nothing passes
 * or fails on time: the target (overhead p95 ≤ 20 ms) is printed, never asserted; it exits
 * non-zero only when a stream or a check voids the numbers.
 */
import { Agent, request as httpRequest } from 'node:http';
import { cpus, loadavg } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { systemClock } from '../../apps/server/src/clock.js';
import { ensureOptionalSchema } from '../../apps/server/src/db/optional-schema.js';
import { createHashedEmbedder } from '../../apps/server/src/embeddings/index.js';
import { embedChunksJob } from '../../apps/server/src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../../apps/server/src/jobs/index-document.js';
import { createLogger } from '../../apps/server/src/logger.js';
import type { JobQueue } from '../../apps/server/src/queue/job-queue.js';
import { createAgent } from '../../apps/server/src/services/agents/agents.js';
import { createSource } from '../../apps/server/src/services/knowledge/sources.js';
import { parseSseFrames } from '../../apps/server/test/support/sse.js';
import {
  createBenchApp,
  type EmbeddedStore,
  openEmbeddedStore,
  startBenchQueue,
} from './support/embedded-store.js';
import { type FakeOpenAi, startFakeOpenAi } from './support/fake-openai.js';
import { hasKey, listenLocal } from './support/http.js';
import {
  argument,
  formatMs,
  type LatencySummary,
  markdownTable,
  positiveIntegers,
  summarize,
} from './support/latency.js';
import { nextAnonId } from './widget-init-request.js';

const REQUESTS = positiveIntegers(argument('requests'), [300], '--requests')[0] ?? 300;
const WARMUP = positiveIntegers(argument('warmup'), [30], '--warmup')[0] ?? 30;
const CONCURRENCY = positiveIntegers(argument('concurrency'), [10], '--concurrency')[0] ?? 10;
/** Issue's target: the service adds at most this much to the upstream's p95. */
const TARGET_OVERHEAD_P95_MS = 20;
const ORIGIN = 'https://shop.example.com';
/** What the fake model answers every question with, in these pieces. */
const ANSWER_PIECES = ['Delivery ', 'takes two to three ', 'working days ', '[1].'];
const ANSWER_TEXT = ANSWER_PIECES.join('');
const QUESTIONS = [
  'How long does delivery take?',
  'Can I return a jacket I bought online?',
  'Which payment methods do you accept?',
  'How should I wash a wool sweater?',
  'When is the store in town open?',
  'Do gift vouchers expire?',
];
/** The shop's FAQ, pasted as an admin `text` source. */
const FAQ = [
  '# Shipping and delivery',
  'We ship every order from our warehouse within one working day. Standard delivery takes two to three ' +
    'working days within the country and five to eight working days to the rest of Europe. Express ' +
    'delivery arrives the next working day when you order before 2 pm. Shipping is free for orders over 60 ' +
    'euros; below that it costs 4.90 euros. Every parcel gets a tracking link by email as soon as the ' +
    'courier collects it.',
  '# Returns and exchanges',
  'You can return an item within 30 days of delivery, unworn and with its labels. Jackets, sweaters and ' +
    'trousers bought online can also be returned in our store in town. Start a return from your account or ' +
    'with the form in your parcel; the refund reaches your payment method within five working days after ' +
    'the warehouse receives the item. Exchanges for another size are free of charge.',
  '# Payment',
  'We accept credit and debit cards (Visa, Mastercard, American Express), PayPal, Apple Pay, Google Pay ' +
    'and bank transfer. Invoices are sent by email with every order. Payment by invoice is available for ' +
    'returning customers after their second order.',
  '# Care of fabrics',
  'Wash wool sweaters by hand or on the wool programme at 30 degrees with a mild wool detergent, and dry ' +
    'them flat, never in the dryer. Cotton shirts can go in the machine at 40 degrees. Recycled polyester ' +
    'jackets should be washed inside out and closed, without fabric softener.',
  '# Our store',
  'Our store in town is open Monday to Friday from 10 am to 7 pm and on Saturday from 10 am to 6 pm. It is ' +
    'closed on Sundays and public holidays. Our team can help you with sizes, repairs and orders.',
  '# Gift vouchers',
  'Gift vouchers are valid for three years from the date of purchase and can be used online and in the ' +
    'store. A voucher can pay part of an order; the rest stays on the voucher. Vouchers cannot be exchanged ' +
    'for cash.',
].join('\n\n');

/** One request's timing: ms from send to the first token, and the whole response text. */
type Timed = { status: number; firstMs: number | null; raw: string };
/** A service stream's parsed frames and what the service recorded for it. */
type Frame = { event: string; data: unknown };
/** A visitor the load asks as: its widget token. */
type Lane = { token: string };

/** The service over its seeded store, the fake model, and how to take them down. */
type Fixture = {
  app: FastifyInstance;
  store: EmbeddedStore;
  queue: JobQueue;
  fake: FakeOpenAi;
  agentId: string;
  serviceUrl: string;
  chunks: number;
  vectors: number;
};

const keepAlive = new Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs `body` and resolves with the ms until `isFirst(text so far)` first held, and the text. */
function timedPost(
  url: string,
  headers: Record<string, string>,
  body: string,
  isFirst: (raw: string) => boolean,
): Promise<Timed> {
  return new Promise((resolve, reject) => {
    let raw = '';
    let firstMs: number | null = null;
    let started = 0;
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (part: string) => {
          raw += part;
          if (firstMs === null && isFirst(raw)) firstMs = performance.now() - started;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, firstMs, raw }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    started = performance.now();
    req.end(body);
  });
}

/** The service's first token: an `event: token` frame. */
const serviceFirstToken = (raw: string) => raw.includes('event: token\n');
/** The upstream's first token: a chunk whose delta has non-empty content (the role chunk's is ""). */
const upstreamFirstToken = (raw: string) => /"content":"[^"]/.test(raw);

/** The frames of an SSE body (comments skipped), with the parser the tests share. */
const parseFrames = (raw: string): Frame[] => parseSseFrames(raw);

/** What is wrong with a service stream, or null: start, token…, block…, done with the fake's text. */
function streamProblem(timed: Timed): string | null {
  if (timed.status !== 200) return `status ${timed.status}: ${timed.raw.slice(0, 200)}`;
  if (timed.firstMs === null) return 'no token frame';
  const frames = parseFrames(timed.raw);
  const events = frames.map((frame) => frame.event);
  if (events[0] !== 'start' || events[1] !== 'token') return `frames ${events.join(',')}`;
  if (events.includes('error'))
    return `error frame: ${JSON.stringify(frames.find((f) => f.event === 'error'))}`;
  const done = frames.at(-1);
  if (done?.event !== 'done' || !hasKey(done.data, 'text') || done.data.text !== ANSWER_TEXT) {
    return `last frame ${JSON.stringify(done)}`;
  }
  return null;
}

/** The `start` frame's message_id (the answer's id, which answer_turns records). */
function messageIdOf(timed: Timed): string | null {
  const start = parseFrames(timed.raw).find((frame) => frame.event === 'start');
  return start && hasKey(start.data, 'message_id') && typeof start.data.message_id === 'string'
    ? start.data.message_id
    : null;
}

async function seedAndIndex(store: EmbeddedStore, queue: JobQueue, agentId: string) {
  const embeddings = createHashedEmbedder();
  const log = createLogger('silent');
  await createSource({ ...store.scope, queue, appKey: store.config.appKey }, agentId, {
    type: 'text',
    name: 'Shop FAQ',
    text: FAQ,
  });
  const db = store.database.db;
  const documents = await db.selectFrom('documents').select('id').where('agent_id', '=', agentId).execute();
  const context = { db, clock: systemClock, log, jobId: 'bench', attempt: 1, queue, embeddings };
  for (const doc of documents) await indexDocumentJob.handle({ documentId: doc.id }, context);
  await embedChunksJob.handle({ agentId }, context);
  const count = async (table: 'chunks' | 'embeddings') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('agent_id', '=', agentId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { chunks: await count('chunks'), vectors: await count('embeddings') };
}

/**
 * The fake model, then the real app over a fresh embedded store that points at it, with the
 * optional schema a starting service creates, a published agent and its indexed FAQ.
 */
async function createFixture(): Promise<Fixture> {
  const fake = await startFakeOpenAi(ANSWER_PIECES);
  const store = await openEmbeddedStore({
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: fake.baseUrl,
    LLM_API_KEY: 'x',
    // 30 messages a minute per visitor by default; the run sends more.
    WIDGET_RATE_LIMIT_SCALE: '10000',
  });
  const embeddings = createHashedEmbedder();
  await ensureOptionalSchema(store.database.db, store.database.features, embeddings.dimensions ?? null);
  const queue = await startBenchQueue(store);
  const agent = await createAgent(
    { ...store.scope, queue },
    {
      name: 'Shop agent',
      allowed_origins: [ORIGIN],
      is_published: true,
      language_default: 'en',
      system_prompt: 'You help visitors of the shop. Answer from the sources only.',
    },
  );
  const seeded = await seedAndIndex(store, queue, agent.id);
  const app = await createBenchApp(store, queue, { embeddings });
  const serviceUrl = await listenLocal(app);
  return { app, store, queue, fake, agentId: agent.id, serviceUrl, ...seeded };
}

/** A new visitor through the real init route; its token. */
async function newLane(fixture: Fixture): Promise<Lane> {
  const response = await fetch(`${fixture.serviceUrl}/v1/widget/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ agent_id: fixture.agentId, anon_id: nextAnonId() }),
  });
  const body: unknown = await response.json();
  if (response.status !== 200 || !hasKey(body, 'data') || !hasKey(body.data, 'token')) {
    throw new Error(`widget init: ${response.status} ${JSON.stringify(body)}`);
  }
  return { token: String(body.data.token) };
}

/** Collects timings and what voids them. */
class Recorder {
  readonly service: number[] = [];
  readonly upstream: number[] = [];
  /** Message ids of measured answers, to look up what the service recorded for them. */
  readonly messages = new Map<string, number>();
  readonly problems: string[] = [];
}

async function askService(fixture: Fixture, lane: Lane, n: number, recorder: Recorder | null): Promise<void> {
  const question = QUESTIONS[n % QUESTIONS.length] ?? 'How long does delivery take?';
  const timed = await timedPost(
    `${fixture.serviceUrl}/v1/widget/messages/stream`,
    { 'content-type': 'application/json', authorization: `Bearer ${lane.token}`, origin: ORIGIN },
    JSON.stringify({ message: question }),
    serviceFirstToken,
  );
  const problem = streamProblem(timed);
  if (problem !== null) {
    if (!recorder) throw new Error(`warm-up: service ${problem}`);
    recorder.problems.push(`service: ${problem}`);
    return;
  }
  if (!recorder || timed.firstMs === null) return;
  recorder.service.push(timed.firstMs);
  const id = messageIdOf(timed);
  if (id) recorder.messages.set(id, timed.firstMs);
}

async function askUpstream(fixture: Fixture, body: string, recorder: Recorder | null): Promise<void> {
  const timed = await timedPost(
    `${fixture.fake.baseUrl}/chat/completions`,
    { 'content-type': 'application/json', authorization: 'Bearer x' },
    body,
    upstreamFirstToken,
  );
  const ok = timed.status === 200 && timed.firstMs !== null && timed.raw.includes('data: [DONE]');
  if (!ok) {
    if (!recorder) throw new Error(`warm-up: upstream ${timed.status} ${timed.raw.slice(0, 200)}`);
    recorder.problems.push(`upstream: ${timed.status} ${timed.raw.slice(0, 200)}`);
    return;
  }
  if (recorder && timed.firstMs !== null) recorder.upstream.push(timed.firstMs);
}

/** One at a time: each service request, then the upstream with the body the service just sent. */
async function sequential(fixture: Fixture): Promise<Recorder> {
  const lane = await newLane(fixture);
  const recorder = new Recorder();
  for (let i = 0; i < WARMUP + REQUESTS; i += 1) {
    const measured = i >= WARMUP ? recorder : null;
    await askService(fixture, lane, i, measured);
    const body = fixture.fake.lastBody();
    if (body === null) throw new Error('the fake model saw no request');
    await askUpstream(fixture, body, measured);
  }
  return recorder;
}

/** Runs `total` numbered tasks with `width` in flight. */
async function inFlight(width: number, total: number, task: (lane: number, n: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async (_, lane) => {
      for (;;) {
        const n = next;
        next += 1;
        if (n >= total) return;
        await task(lane, n);
      }
    }),
  );
}

/**
 * CONCURRENCY visitors asking at once (each lane waits for its answer before asking again);
 * then the upstream alone, as many in flight, replaying the bodies the service sent it.
 */
async function concurrent(fixture: Fixture): Promise<Recorder> {
  const lanes = await Promise.all(Array.from({ length: CONCURRENCY }, () => newLane(fixture)));
  const recorder = new Recorder();
  const bodies: string[] = [];
  await inFlight(CONCURRENCY, WARMUP + REQUESTS, async (lane, n) => {
    const current = lanes[lane];
    if (!current) throw new Error(`no lane ${lane}`);
    await askService(fixture, current, n, n >= WARMUP ? recorder : null);
    const body = fixture.fake.lastBody();
    if (body !== null && bodies.length < WARMUP + REQUESTS) bodies.push(body);
  });
  await inFlight(CONCURRENCY, WARMUP + REQUESTS, async (_, n) => {
    const body = bodies[n % bodies.length];
    if (body === undefined) throw new Error('no upstream body captured');
    await askUpstream(fixture, body, n >= WARMUP ? recorder : null);
  });
  return recorder;
}

/** What the service recorded for the measured answers: time from answer start to first token, and sources. */
async function recordedTurns(fixture: Fixture, recorder: Recorder) {
  const rows = await fixture.store.database.db
    .selectFrom('answer_turns')
    .select(['answer_message_id', 'first_token_ms', 'retrieved', 'provider'])
    .where('agent_id', '=', fixture.agentId)
    .execute();
  const modelMs: number[] = [];
  const beforeModelMs: number[] = [];
  let withoutSources = 0;
  let seen = 0;
  for (const row of rows) {
    const ttft = row.answer_message_id ? recorder.messages.get(row.answer_message_id) : undefined;
    if (ttft === undefined) continue;
    seen += 1;
    if (!Array.isArray(row.retrieved) || row.retrieved.length === 0) withoutSources += 1;
    if (row.first_token_ms !== null) {
      modelMs.push(row.first_token_ms);
      beforeModelMs.push(Math.max(0, ttft - row.first_token_ms));
    }
  }
  if (seen !== recorder.messages.size) {
    recorder.problems.push(`${recorder.messages.size - seen} measured answers have no recorded turn`);
  }
  if (withoutSources > 0) recorder.problems.push(`${withoutSources} answers retrieved no source`);
  return { model: summarize(modelMs), beforeModel: summarize(beforeModelMs) };
}

type Result = {
  variant: string;
  service: LatencySummary;
  upstream: LatencySummary;
  model: LatencySummary;
  beforeModel: LatencySummary;
  problems: string[];
};

async function run(
  fixture: Fixture,
  variant: string,
  load: (f: Fixture) => Promise<Recorder>,
): Promise<Result> {
  const started = performance.now();
  const recorder = await load(fixture);
  const turns = await recordedTurns(fixture, recorder);
  const result = {
    variant,
    service: summarize(recorder.service),
    upstream: summarize(recorder.upstream),
    ...turns,
    problems: recorder.problems,
  };
  console.log(
    `  ${variant}: service p95 ${formatMs(result.service.p95)} ms, upstream p95 ${formatMs(result.upstream.p95)} ms ` +
      `(${((performance.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()[0]?.toFixed(1)})`,
  );
  return result;
}

function printResults(results: readonly Result[]): void {
  const row = (variant: string, what: string, s: LatencySummary) => [
    variant,
    what,
    String(s.count),
    formatMs(s.p50),
    formatMs(s.p95),
    formatMs(s.p99),
    formatMs(s.mean),
  ];
  const rows: string[][] = [];
  for (const r of results) {
    rows.push(row(r.variant, 'service: request → first `event: token`', r.service));
    rows.push(row('', 'upstream direct: request → first token chunk', r.upstream));
    rows.push([
      '',
      'overhead (service − upstream)',
      '',
      formatMs(r.service.p50 - r.upstream.p50),
      formatMs(r.service.p95 - r.upstream.p95),
      formatMs(r.service.p99 - r.upstream.p99),
      formatMs(r.service.mean - r.upstream.mean),
    ]);
    rows.push(row('', 'of which before the model call (as recorded)', r.beforeModel));
    rows.push(row('', 'model call → first token (service-side, as recorded)', r.model));
  }
  console.log(
    `\n${markdownTable(['variant', 'time to first token', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms'], rows)}\n`,
  );
  console.log(
    '"before the model call" = measured TTFT − answer_turns.first_token_ms (auth, storing the question, ' +
      'retrieval, context); the service records whole milliseconds.',
  );
  for (const r of results) {
    const overhead = r.service.p95 - r.upstream.p95;
    console.log(
      `Target: overhead p95 ≤ ${TARGET_OVERHEAD_P95_MS} ms (${r.variant}): ` +
        `${overhead <= TARGET_OVERHEAD_P95_MS ? 'met' : 'not met'} (measured ${formatMs(overhead)} ms)`,
    );
  }
}

async function main(): Promise<number> {
  const cpuList = cpus();
  console.log(
    `Widget time to first token: node ${process.version}, ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${REQUESTS} requests after ${WARMUP} of warm-up, sequential and ${CONCURRENCY} in flight, ` +
      `load average ${loadavg()[0]?.toFixed(1)}`,
  );
  let fixture: Fixture | null = null;
  try {
    fixture = await createFixture();
    console.log(
      `Store: embedded (PGlite), agent FAQ ${(FAQ.length / 1024).toFixed(1)} KB → ${fixture.chunks} chunks, ` +
        `${fixture.vectors} vectors; fake model streams ${ANSWER_PIECES.length} pieces at once`,
    );
    const results = [
      await run(fixture, 'sequential', sequential),
      await run(fixture, `${CONCURRENCY} in flight`, concurrent),
    ];
    printResults(results);
    let failed = 0;
    for (const r of results) {
      for (const problem of [...new Set(r.problems)].slice(0, 5)) {
        console.error(`${r.variant}: ${problem}; its numbers are void`);
      }
      if (r.problems.length > 0) failed += 1;
    }
    if (fixture.chunks === 0 || fixture.vectors === 0) {
      console.error(
        `seeding: ${fixture.chunks} chunks, ${fixture.vectors} vectors; retrieval did no real work`,
      );
      failed += 1;
    }
    return failed > 0 ? 1 : 0;
  } finally {
    keepAlive.destroy();
    if (fixture) {
      await fixture.app.close();
      await fixture.queue.stop(1_000);
      await fixture.store.close();
      await fixture.fake.close();
    }
  }
}

process.exitCode = await main();
