/**
 * A fake OpenAI-compatible model on loopback for the time-to-first-token benchmark: it answers
 * `POST /v1/chat/completions` at once (or after a set delay), streaming Chat Completions SSE chunks (the role chunk,
 * one chunk per text piece, the finish chunk, then `data: [DONE]`), all written back to back
 * without waiting. It keeps the raw body of the last request, so the benchmark can send the
 * upstream exactly what the service sent it.
 */
import { createServer, type IncomingMessage } from 'node:http';

/** A running fake model. */
export type FakeOpenAi = {
  /** `http://127.0.0.1:<port>/v1`: the service's LLM_BASE_URL. */
  baseUrl: string;
  /** The raw body of the last request (the prompt the service assembled), or null. */
  lastBody(): string | null;
  /** How many chat completions it answered. */
  served(): number;
  close(): Promise<void>;
};

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'bench-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(String(part)));
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Starts the fake; every answer streams `pieces` as its text. `firstTokenDelayMs` holds each
 * answer that long before its first chunk, as a hosted model takes a while to start writing.
 */
export async function startFakeOpenAi(
  pieces: readonly string[],
  options: { firstTokenDelayMs?: number } = {},
): Promise<FakeOpenAi> {
  const delay = options.firstTokenDelayMs ?? 0;
  const events = [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((text) => chunk({ content: text })),
    chunk({}, 'stop'),
    'data: [DONE]\n\n',
  ];
  let last: string | null = null;
  let served = 0;
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
        return;
      }
      last = body;
      served += 1;
      const answer = () => {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const event of events) res.write(event);
        res.end();
      };
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake model has no port');
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    lastBody: () => last,
    served: () => served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
