/**
 * Which statements one widget answer sends to the embedded store, in order, and which of them
 * come before its first token. The service is started as the load bench starts it (embedded
 * store in a temp DATA_DIR, the fake OpenAI-compatible model), one agent with a text source;
 * every group of frontend messages a connection posts to the store thread is recorded (the
 * statement's text, its lane, when it was sent and answered), by wrapping the driver's
 * `WorkerConnection` in this process only. Then one `POST /v1/widget/messages/stream`, after a
 * few answers of warm-up, is traced. Then 100 answers one at a time and 100 with 10 in flight
 * (each of the 10 on its own conversation, as the load bench asks), with the main thread's busy
 * share and the time each answer's statements spent between sent and answered.
 *
 * Run: `npm run bench:answer-statements` (`-- --answers 3`: how many traced answers).
 */
import { randomBytes } from 'node:crypto';
import { WorkerConnection } from '../../apps/server/src/db/worker-connection.js';
import { type BenchService, startBenchService } from './support/bench-service.js';
import { startFakeOpenAi } from './support/fake-openai.js';
import { hasKey } from './support/http.js';
import { argument, positiveIntegers } from './support/latency.js';

const ANSWERS = positiveIntegers(argument('answers'), [1], '--answers')[0] ?? 1;
const ORIGIN = 'https://shop.example.com';

type Sent = { text: string; lane: string; sentAt: number; answeredAt: number | null };
const trace: Sent[] = [];
let tracing = false;

/** Wraps the driver's connection: each statement text, its lane, and when its group was answered. */
function traceConnections(): void {
  const proto = WorkerConnection.prototype as unknown as Record<string, unknown> & {
    lane?: string;
  };
  type Fn = (this: WorkerConnection, ...args: unknown[]) => unknown;
  const wrap = (name: string, text: (this: WorkerConnection, args: unknown[]) => string | null) => {
    const original = proto[name] as Fn;
    proto[name] = function (this: WorkerConnection, ...args: unknown[]) {
      const statement = text.call(this, args);
      if (tracing && statement !== null) {
        const lane = String((this as unknown as { lane: string }).lane);
        const open = (this as unknown as { open?: Sent[] }).open ?? [];
        const entry: Sent = { text: statement, lane, sentAt: performance.now(), answeredAt: null };
        open.push(entry);
        (this as unknown as { open: Sent[] }).open = open;
        trace.push(entry);
      }
      return original.apply(this, args);
    };
  };
  wrap('query', (args) => String(args[0]));
  // An extended-protocol statement is counted at its Bind, which every execution sends: a named
  // (prepared) statement is parsed once per connection and then only bound. Its text is the one
  // the connection's Parse just sent, or the text pg recorded for that name.
  const parse = proto.parse as Fn;
  proto.parse = function (this: WorkerConnection, ...args: unknown[]) {
    (this as unknown as { lastParsed: string }).lastParsed = hasKey(args[0], 'text')
      ? String(args[0].text)
      : '?';
    return parse.apply(this, args);
  };
  wrap('bind', function (this: WorkerConnection, args) {
    const name = hasKey(args[0], 'statement') ? String(args[0].statement ?? '') : '';
    const named = name ? (this.parsedStatements[name] ?? this.submittedNamedStatements[name]) : undefined;
    const text = named ?? (this as unknown as { lastParsed?: string }).lastParsed ?? '?';
    return name ? `[${name}] ${text}` : text;
  });
  const answer = proto.answer as Fn;
  proto.answer = function (this: WorkerConnection, ...args: unknown[]) {
    const open = (this as unknown as { open?: Sent[] }).open ?? [];
    for (const entry of open) entry.answeredAt = performance.now();
    (this as unknown as { open: Sent[] }).open = [];
    return answer.apply(this, args);
  };
}

async function main(): Promise<void> {
  traceConnections();
  const fake = await startFakeOpenAi(['Delivery ', 'takes two to three ', 'working days [1].']);
  let bench: BenchService | null = null;
  try {
    bench = await startBenchService({ name: 'statements', llmBaseUrl: fake.baseUrl });
    const { baseUrl, tenant } = bench;
    const admin = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.admin_token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json: unknown = await response.json();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
      return hasKey(json, 'data') ? json.data : json;
    };
    const agent = await admin('POST', '/api/v1/admin/agents', {
      name: 'Shop',
      allowed_origins: [ORIGIN],
      is_published: true,
    });
    const agentId = hasKey(agent, 'id') ? String(agent.id) : '';
    const source = await admin('POST', `/api/v1/admin/agents/${agentId}/sources`, {
      type: 'text',
      name: 'FAQ',
      text: 'Delivery takes two to three working days. Returns are free within 30 days.',
    });
    const sourceId = hasKey(source, 'id') ? String(source.id) : '';
    for (;;) {
      const got = await admin('GET', `/api/v1/admin/sources/${sourceId}`);
      if (hasKey(got, 'status') && got.status === 'indexed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const widgetToken = async () => {
      const init = await fetch(`${baseUrl}/v1/widget/init`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: ORIGIN },
        body: JSON.stringify({ agent_id: agentId, anon_id: `statements-${randomBytes(6).toString('hex')}` }),
      });
      const body: unknown = await init.json();
      return hasKey(body, 'data') && hasKey(body.data, 'token') ? String(body.data.token) : '';
    };
    const tokens = await Promise.all(Array.from({ length: 10 }, () => widgetToken()));
    const token = tokens[0] ?? '';

    const ask = async (bearer = token) => {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/v1/widget/messages/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}`, origin: ORIGIN },
        body: JSON.stringify({ message: 'How long does delivery take?' }),
      });
      let text = '';
      let firstToken: number | null = null;
      const decoder = new TextDecoder();
      for await (const part of response.body ?? []) {
        text += decoder.decode(part, { stream: true });
        if (firstToken === null && text.includes('event: token\n')) firstToken = performance.now();
      }
      if (!text.includes('event: done')) throw new Error(`no answer: ${text.slice(0, 300)}`);
      return { started, firstToken: firstToken ?? Number.NaN, ended: performance.now() };
    };
    for (let i = 0; i < 5; i += 1) await ask();
    for (let n = 0; n < ANSWERS; n += 1) {
      // Let the background lane (the job queue's polls) settle so they are not counted.
      await new Promise((resolve) => setTimeout(resolve, 200));
      trace.length = 0;
      tracing = true;
      const times = await ask();
      await new Promise((resolve) => setTimeout(resolve, 50));
      tracing = false;
      const mine = trace.filter((entry) => entry.lane === 'interactive');
      const before = mine.filter((entry) => (entry.answeredAt ?? Infinity) <= times.firstToken);
      console.log(
        `\nAnswer ${n + 1}: ${mine.length} interactive statements (${before.length} before the first token), ` +
          `${trace.length - mine.length} background; first token ${(times.firstToken - times.started).toFixed(1)} ms, ` +
          `end ${(times.ended - times.started).toFixed(1)} ms`,
      );
      for (const entry of trace) {
        const at = (entry.sentAt - times.started).toFixed(1).padStart(6);
        const took =
          entry.answeredAt === null ? '   ?' : (entry.answeredAt - entry.sentAt).toFixed(1).padStart(5);
        const mark = (entry.answeredAt ?? Infinity) <= times.firstToken ? '*' : ' ';
        const text = entry.text.replace(/\s+/g, ' ').slice(0, 150);
        console.log(`${mark} ${at} +${took} ms ${entry.lane.slice(0, 4)} ${text}`);
      }
    }
    console.log('\n* = answered before the first token reached the client');

    // Where the time goes with 10 answers in flight: the main thread's busy share, and per answer
    // the time its statements spent between being sent and answered (queueing included).
    for (const inFlight of [1, 10]) {
      trace.length = 0;
      tracing = true;
      const elu = performance.eventLoopUtilization();
      const ttfts: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        tokens.slice(0, inFlight).map(async (bearer) => {
          while (next < 100) {
            next += 1;
            const times = await ask(bearer);
            ttfts.push(times.firstToken - times.started);
          }
        }),
      );
      const wall = performance.now() - started;
      tracing = false;
      const busy = performance.eventLoopUtilization(elu);
      const mine = trace.filter((entry) => entry.lane !== 'background');
      const inStore = mine.reduce(
        (sum, entry) => sum + ((entry.answeredAt ?? entry.sentAt) - entry.sentAt),
        0,
      );
      ttfts.sort((a, b) => a - b);
      console.log(
        `${inFlight} in flight: ${(100_000 / wall).toFixed(0)} answers/s, main thread busy ${(busy.utilization * 100).toFixed(0)} %, ` +
          `TTFT p50 ${ttfts[50]?.toFixed(1)} ms p95 ${ttfts[95]?.toFixed(1)} ms, ` +
          `statements sent→answered ${(inStore / 100).toFixed(1)} ms an answer (${(mine.length / 100).toFixed(1)} statements)`,
      );
    }
  } finally {
    await bench?.stop();
    await fake.close();
  }
}

await main();
