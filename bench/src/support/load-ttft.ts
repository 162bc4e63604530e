/**
 * `bench:load`'s widget part: time to first token of widget answers, one at a time and with
 * CONCURRENCY in flight (asked together, and with the first questions spread), and its table rows.
 */
import { randomBytes } from 'node:crypto';
import { hasKey } from './http.js';
import { formatMs, formatRatio, summarize } from './latency.js';

/** The site the bench's agents allow (the widget's requests carry it as their Origin). */
export const ORIGIN = 'https://shop.example.com';
/** Clients asking at once. */
export const CONCURRENCY = 10;
/** Rounds of the ten in flight not counted: they start in step (see `measureTtft`). */
const WARM_ROUNDS = 5;
/** The longest a widget answer's stream may take before the run fails naming it. */
const STREAM_TIMEOUT_MS = 60_000;

/** Widget time to first token: ms from sending the stream request to its first `event: token`. */
async function ttft(baseUrl: string, token: string, question: string): Promise<number> {
  const started = performance.now();
  // A stream that stalls fails the run with what it had received, instead of waiting forever.
  const response = await fetch(`${baseUrl}/v1/widget/messages/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, origin: ORIGIN },
    body: JSON.stringify({ message: question }),
    signal: AbortSignal.timeout(STREAM_TIMEOUT_MS),
  });
  if (response.status !== 200 || !response.body) throw new Error(`stream answered ${response.status}`);
  let first: number | null = null;
  let text = '';
  const decoder = new TextDecoder();
  try {
    for await (const part of response.body) {
      text += decoder.decode(part, { stream: true });
      if (first === null && text.includes('event: token\n')) first = performance.now() - started;
    }
  } catch (error) {
    throw new Error(
      `stream stalled after ${Math.round(performance.now() - started)} ms (request id ` +
        `${response.headers.get('x-request-id') ?? '?'}): ${text.slice(-300)}`,
      { cause: error },
    );
  }
  if (first === null || !text.includes('event: done'))
    throw new Error(`stream without token: ${text.slice(0, 300)}`);
  return first;
}

async function widgetToken(baseUrl: string, agentId: string, n: number): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/widget/init`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ agent_id: agentId, anon_id: `bench-load-${n}-${randomBytes(6).toString('hex')}` }),
  });
  const body: unknown = await response.json();
  if (!hasKey(body, 'data') || !hasKey(body.data, 'token')) throw new Error(`init: ${JSON.stringify(body)}`);
  return String(body.data.token);
}

export async function measureTtft(baseUrl: string, agentId: string, requests: number) {
  const questions = [
    'How long does delivery take?',
    'Can I return a wool sweater?',
    'Which cards do you take?',
  ];
  const tokens = await Promise.all(
    Array.from({ length: CONCURRENCY }, (_, n) => widgetToken(baseUrl, agentId, n)),
  );
  const first = tokens[0] ?? '';
  for (let i = 0; i < 10; i += 1) await ttft(baseUrl, first, questions[i % 3] ?? '');
  const sequential: number[] = [];
  for (let i = 0; i < requests; i += 1) sequential.push(await ttft(baseUrl, first, questions[i % 3] ?? ''));
  const sequentialSummary = summarize(sequential);
  // Ten clients that each ask again the moment their answer ends (a closed loop). They start
  // together, so their first rounds reach the service in the same millisecond; with a model that
  // takes exactly the same time for every answer (the fake's fixed delay) they stay in step for a
  // few rounds and then drift apart, as a real model's varying delay parts them at once. The
  // first WARM_ROUNDS rounds are not counted: what is measured is ten in flight, steadily.
  // Spread: the first questions start one tenth of an answer's time apart, as visitors' do.
  const inFlight = async (spreadMs: number) => {
    const times: number[] = [];
    let next = 0;
    const skipped = WARM_ROUNDS * CONCURRENCY;
    await Promise.all(
      tokens.map(async (token, client) => {
        await new Promise((resolve) => setTimeout(resolve, client * spreadMs));
        while (next < requests + skipped) {
          const n = next++;
          const ms = await ttft(baseUrl, token, questions[n % 3] ?? '');
          if (n >= skipped) times.push(ms);
        }
      }),
    );
    return summarize(times);
  };
  // The worst case, on purpose: every round, the ten ask in the same millisecond and the next
  // round starts only when all ten have answered, so the last of each round waits for the
  // other nine's work before its own (one warm-up round not counted).
  const bursts = async () => {
    const times: number[] = [];
    for (let round = 0; times.length < requests; round += 1) {
      const answered = await Promise.all(
        tokens.map((token, client) => ttft(baseUrl, token, questions[(round + client) % 3] ?? '')),
      );
      if (round > 0) times.push(...answered.slice(0, requests - times.length));
    }
    return summarize(times);
  };
  const together = await inFlight(0);
  const spread = await inFlight(sequentialSummary.p50 / CONCURRENCY);
  const burst = await bursts();
  return { sequential: sequentialSummary, together, spread, burst };
}

export type TtftResult = Awaited<ReturnType<typeof measureTtft>>;
type Summary = ReturnType<typeof summarize>;

/** One table row: `a` beside `b` (count, p50, p95 each) and the ratio of their p95. */
export function comparisonRow(what: string, a: Summary, b: Summary, goal: string): string[] {
  return [
    what,
    `${a.count}`,
    formatMs(a.p50),
    formatMs(a.p95),
    `${b.count}`,
    formatMs(b.p50),
    formatMs(b.p95),
    formatRatio(b.p95 / a.p95),
    goal,
  ];
}

/** Table rows of the TTFT comparison; with a model delay, also the service's overhead (TTFT − delay). */
export function ttftRows(widget: TtftResult, modelDelayMs: number): string[][] {
  const minus = (s: Summary) =>
    modelDelayMs > 0 ? { ...s, p50: s.p50 - modelDelayMs, p95: s.p95 - modelDelayMs } : s;
  const model = modelDelayMs ? ` (model ${modelDelayMs} ms)` : '';
  const rows: string[][] = [];
  // The goal is for ten in flight; the bursts are shown beside it, as the bound on the worst case.
  for (const [how, measured, goal] of [
    ['closed loop', widget.together, '≤ 3x'],
    ['first questions spread', widget.spread, '≤ 3x'],
    ['all ten at once every round', widget.burst, '-'],
  ] as const) {
    rows.push(
      comparisonRow(
        `widget TTFT${model}: sequential vs ${CONCURRENCY} in flight, ${how}`,
        widget.sequential,
        measured,
        goal,
      ),
    );
    if (modelDelayMs > 0) {
      rows.push(
        comparisonRow(
          `widget TTFT overhead (minus the model delay), ${how}`,
          minus(widget.sequential),
          minus(measured),
          goal,
        ),
      );
    }
  }
  return rows;
}
