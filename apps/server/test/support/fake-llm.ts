import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A scripted tool call; its `arguments` JSON is streamed in `argumentChunks` pieces. */
export type FakeToolCall = { id: string; name: string; arguments: string };

/** What the fake answers one request with. */
export type FakeStep =
  /** A reply streamed in these chunks (non-stream OpenAI requests get them joined). */
  | { kind: 'text'; chunks: readonly string[]; delayMs?: number }
  /** Optional text, then tool calls whose arguments arrive in `argumentChunks` pieces each. */
  | { kind: 'tool_calls'; calls: readonly FakeToolCall[]; text?: string; argumentChunks?: number }
  /** An HTTP error answer. */
  | { kind: 'status'; status: number; body?: string }
  /** Sends these chunks (none: not even the headers), then never another byte. */
  | { kind: 'hang'; chunks?: readonly string[] }
  /** Sends these chunks, then destroys the connection. */
  | { kind: 'drop'; chunks: readonly string[] };

/** One request the fake received. */
export type FakeRequest = {
  api: 'openai' | 'anthropic';
  path: string;
  authorization: string | undefined;
  apiKeyHeader: string | undefined;
  /** The parsed JSON body (the prompt, messages, tools, model…). */
  body: Record<string, unknown>;
};

/** A running fake model server on 127.0.0.1. */
export type FakeLlm = {
  /** `http://127.0.0.1:<port>`: the Anthropic base URL. */
  baseUrl: string;
  /** `<baseUrl>/v1`: the OpenAI-compatible base URL. */
  openAiBaseUrl: string;
  requests: FakeRequest[];
  /** Replaces the script; the counter restarts. */
  setScript(steps: readonly FakeStep[]): void;
  close(): Promise<void>;
};

/**
 * Starts a loopback server speaking OpenAI `/v1/chat/completions` (SSE `data:` chunks ending in
 * `data: [DONE]`, or one JSON body without `stream`) and Anthropic `/v1/messages` (SSE events).
 * Each request takes the next scripted step; once the script runs out the last step repeats
 * (an empty script answers "ok"). Every request body is recorded.
 */
export async function startFakeLlm(options: { script?: readonly FakeStep[] } = {}): Promise<FakeLlm> {
  let script: readonly FakeStep[] = options.script ?? [];
  let served = 0;
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const path = req.url ?? '';
      const api = path.endsWith('/messages') ? 'anthropic' : 'openai';
      requests.push({
        api,
        path,
        authorization: req.headers.authorization,
        apiKeyHeader: headerText(req.headers['x-api-key']),
        body: parseObject(text),
      });
      const step = script[Math.min(served, script.length - 1)] ?? { kind: 'text', chunks: ['ok'] };
      served += 1;
      const stream = parseObject(text).stream === true;
      return answer(res, api, step, stream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fake LLM has no port');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    baseUrl,
    openAiBaseUrl: `${baseUrl}/v1`,
    requests,
    setScript(steps) {
      script = steps;
      served = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(res: ServerResponse, api: 'openai' | 'anthropic', step: FakeStep, stream: boolean) {
  if (step.kind === 'status') {
    res.writeHead(step.status, { 'content-type': 'application/json' });
    res.end(step.body ?? '{"error":{"type":"server_error","message":"scripted failure"}}');
    return;
  }
  if (step.kind === 'hang' && !step.chunks?.length) return;
  if (api === 'openai' && !stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(openAiCompletion(step)));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const events = api === 'openai' ? openAiEvents(step) : anthropicEvents(step);
  // Partial steps send the preamble (OpenAI: the role chunk; Anthropic: message_start and the text block start) and their chunks.
  const preamble = api === 'openai' ? 1 : 2;
  const cut =
    step.kind === 'hang' || step.kind === 'drop' ? preamble + (step.chunks?.length ?? 0) : events.length;
  const delayMs = step.kind === 'text' ? (step.delayMs ?? 0) : 0;
  for (const event of events.slice(0, cut)) {
    // Waits for the flush, so a drop or a hang comes after the client has the chunks.
    await new Promise<void>((resolve) => res.write(event, () => resolve()));
    if (delayMs > 0) await sleep(delayMs);
  }
  if (step.kind === 'drop') {
    await sleep(20);
    res.socket?.destroy();
  } else if (step.kind !== 'hang') res.end();
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
const namedSse = (data: { type: string } & Record<string, unknown>) => `event: ${data.type}\n${sse(data)}`;

function stepText(step: FakeStep): string[] {
  if (step.kind === 'status') return [];
  if (step.kind === 'tool_calls') return step.text ? [step.text] : [];
  return [...(step.chunks ?? [])];
}

function stepCalls(step: FakeStep): readonly FakeToolCall[] {
  return step.kind === 'tool_calls' ? step.calls : [];
}

/** Splits JSON text into `count` pieces (the way models stream tool arguments). */
function pieces(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [''];
}

/** Chat Completions SSE: first the role chunk, then the text/tool deltas, the finish chunk and [DONE]. */
function openAiEvents(step: FakeStep): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const text of stepText(step)) events.push(chunk({ content: text }));
  const calls = stepCalls(step);
  const argumentChunks = step.kind === 'tool_calls' ? (step.argumentChunks ?? 3) : 1;
  calls.forEach((call, index) => {
    events.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }],
      }),
    );
    for (const part of pieces(call.arguments, argumentChunks)) {
      events.push(chunk({ tool_calls: [{ index, function: { arguments: part } }] }));
    }
  });
  events.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'), 'data: [DONE]\n\n');
  return events;
}

function openAiCompletion(step: FakeStep) {
  const calls = stepCalls(step).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake-model',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: stepText(step).join(''),
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
  };
}

/** Messages SSE: message_start, a text block, tool_use blocks with input_json_delta, message_delta, message_stop. */
function anthropicEvents(step: FakeStep): string[] {
  const events = [
    namedSse({
      type: 'message_start',
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: 'fake-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 0 },
      },
    }),
  ];
  const texts = stepText(step);
  let index = 0;
  if (texts.length > 0) {
    events.push(namedSse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
    for (const text of texts) {
      events.push(namedSse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    }
    events.push(namedSse({ type: 'content_block_stop', index }));
    index += 1;
  }
  const argumentChunks = step.kind === 'tool_calls' ? (step.argumentChunks ?? 3) : 1;
  for (const call of stepCalls(step)) {
    const block = { type: 'tool_use', id: call.id, name: call.name, input: {} };
    events.push(namedSse({ type: 'content_block_start', index, content_block: block }));
    for (const part of pieces(call.arguments, argumentChunks)) {
      events.push(
        namedSse({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: part },
        }),
      );
    }
    events.push(namedSse({ type: 'content_block_stop', index }));
    index += 1;
  }
  const stopReason = stepCalls(step).length > 0 ? 'tool_use' : 'end_turn';
  events.push(
    namedSse({
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 1 },
    }),
    namedSse({ type: 'message_stop' }),
  );
  return events;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(String(part)));
  return Buffer.concat(parts).toString('utf8');
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};
  } catch {
    return {};
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
