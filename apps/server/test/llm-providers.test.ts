import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAnthropicProvider } from '../src/llm/anthropic-provider.js';
import {
  type CompletionRequest,
  LlmError,
  type LlmEvent,
  type LlmProvider,
} from '../src/llm/llm-provider.js';
import { createOpenAiProvider } from '../src/llm/openai-provider.js';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';

const REQUEST: CompletionRequest = {
  system: 'SYSTEM PROMPT v1',
  messages: [{ role: 'user', content: 'Where is my order?' }],
};
const TOOL = {
  name: 'lookup_order',
  description: 'Looks an order up',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};
const TOOL_TURNS: CompletionRequest = {
  system: 'S',
  tools: [TOOL],
  messages: [
    { role: 'user', content: 'Order 42?' },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'call_a', name: 'lookup_order', arguments: '{"order_id":"42"}' }],
    },
    { role: 'tool', toolCallId: 'call_a', name: 'lookup_order', content: '{"status":"shipped"}' },
  ],
};

/** Runs a stream to its end; returns the events and the error it ended with (or null). */
async function drain(provider: LlmProvider, request: CompletionRequest = REQUEST) {
  const events: LlmEvent[] = [];
  try {
    for await (const event of provider.stream(request)) events.push(event);
    return { events, error: null };
  } catch (error) {
    assert.ok(error instanceof LlmError, `not an LlmError: ${String(error)}`);
    return { events, error };
  }
}
const tokens = (events: LlmEvent[]) => events.flatMap((e) => (e.type === 'token' ? [e.text] : []));

describe('LLM providers against the fake upstream', () => {
  let fake: FakeLlm;
  before(async () => {
    fake = await startFakeLlm();
  });
  after(() => fake.close());

  const openai = (timeoutMs = 5_000, apiKey: string | null = 'sk-test-openai') =>
    createOpenAiProvider({ baseUrl: fake.openAiBaseUrl, apiKey: apiKey ?? undefined, timeoutMs });
  const anthropic = (timeoutMs = 5_000) =>
    createAnthropicProvider({ baseUrl: fake.baseUrl, apiKey: 'sk-ant-test', timeoutMs });

  test('OpenAI: streams the text in its chunks, sends the system prompt first, default model', async () => {
    fake.setScript([{ kind: 'text', chunks: ['Hel', 'lo ', 'world'] }]);
    const provider = openai();
    const { events, error } = await drain(provider);
    assert.equal(error, null);
    assert.deepEqual(tokens(events), ['Hel', 'lo ', 'world']);
    assert.deepEqual(events.at(-1), { type: 'end', finishReason: 'stop' });
    assert.equal(provider.label, 'openai:gpt-4o-mini');
    const seen = fake.requests.at(-1);
    assert.equal(seen?.path, '/v1/chat/completions');
    assert.equal(seen?.authorization, 'Bearer sk-test-openai');
    assert.equal(seen?.body.model, 'gpt-4o-mini');
    assert.equal(seen?.body.stream, true);
    assert.deepEqual(seen?.body.messages, [
      { role: 'system', content: 'SYSTEM PROMPT v1' },
      { role: 'user', content: 'Where is my order?' },
    ]);
  });

  test('OpenAI without a key (Ollama, llama.cpp) sends no Authorization header', async () => {
    fake.setScript([{ kind: 'text', chunks: ['ok'] }]);
    const { error } = await drain(openai(5_000, null));
    assert.equal(error, null);
    assert.equal(fake.requests.at(-1)?.authorization, undefined);
  });

  test('OpenAI: streamed tool-call fragments become complete calls, then end; turns map to the API shape', async () => {
    fake.setScript([
      {
        kind: 'tool_calls',
        argumentChunks: 4,
        calls: [
          { id: 'call_1', name: 'lookup_order', arguments: '{"order_id":"1001"}' },
          { id: 'call_2', name: 'lookup_order', arguments: '{"order_id":"1002"}' },
        ],
      },
    ]);
    const { events, error } = await drain(openai(), TOOL_TURNS);
    assert.equal(error, null);
    assert.deepEqual(
      events.map((e) => e.type),
      ['tool_calls', 'end'],
    );
    assert.deepEqual(events[0], {
      type: 'tool_calls',
      calls: [
        { id: 'call_1', name: 'lookup_order', arguments: '{"order_id":"1001"}' },
        { id: 'call_2', name: 'lookup_order', arguments: '{"order_id":"1002"}' },
      ],
    });
    assert.deepEqual(events[1], { type: 'end', finishReason: 'tool_calls' });
    const body = fake.requests.at(-1)?.body;
    assert.deepEqual(body?.tools, [{ type: 'function', function: TOOL }]);
    assert.deepEqual(body?.messages, [
      { role: 'system', content: 'S' },
      { role: 'user', content: 'Order 42?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'lookup_order', arguments: '{"order_id":"42"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"status":"shipped"}' },
    ]);
  });

  test('OpenAI: HTTP 500 is an LlmError before streaming, without the key in the message', async () => {
    fake.setScript([{ kind: 'status', status: 500 }]);
    const before = fake.requests.length;
    const { events, error } = await drain(openai());
    assert.ok(error);
    assert.match(error.message, /openai:gpt-4o-mini: upstream answered HTTP 500/);
    assert.equal(error.hasStreamed, false);
    assert.ok(!error.message.includes('sk-test-openai'));
    assert.deepEqual(events, []);
    assert.equal(fake.requests.length - before, 1, 'no retries: failover is ours');
  });

  test('OpenAI: an upstream that never answers times out', async () => {
    fake.setScript([{ kind: 'hang' }]);
    const started = Date.now();
    const { error } = await drain(openai(300));
    assert.ok(error);
    assert.match(error.message, /no answer within 300 ms/);
    assert.equal(error.hasStreamed, false);
    assert.ok(Date.now() - started < 3_000);
  });

  test('OpenAI: a stream that stalls after some text times out with hasStreamed', async () => {
    fake.setScript([{ kind: 'hang', chunks: ['Partial ', 'answer'] }]);
    const { events, error } = await drain(openai(300));
    assert.deepEqual(tokens(events), ['Partial ', 'answer']);
    assert.ok(error);
    assert.match(error.message, /no answer within 300 ms/);
    assert.equal(error.hasStreamed, true);
  });

  test('OpenAI: a connection dropped mid-stream is an LlmError with hasStreamed', async () => {
    fake.setScript([{ kind: 'drop', chunks: ['Half'] }]);
    const { events, error } = await drain(openai());
    assert.deepEqual(tokens(events), ['Half']);
    assert.ok(error);
    assert.equal(error.hasStreamed, true);
  });

  test('a cancelled call stops with an LlmError', async () => {
    fake.setScript([{ kind: 'hang' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { error } = await drain(openai(), { ...REQUEST, signal: controller.signal });
    assert.ok(error);
    assert.match(error.message, /cancelled/);
  });

  test('Anthropic: streams text, puts the system prompt in `system`, default model, sends the key', async () => {
    fake.setScript([{ kind: 'text', chunks: ['Bon', 'jour'] }]);
    const provider = anthropic();
    const { events, error } = await drain(provider);
    assert.equal(error, null);
    assert.deepEqual(tokens(events), ['Bon', 'jour']);
    assert.deepEqual(events.at(-1), { type: 'end', finishReason: 'stop' });
    assert.equal(provider.label, 'anthropic:claude-3-5-haiku-latest');
    const seen = fake.requests.filter((request) => request.api === 'anthropic').at(-1);
    assert.equal(seen?.path, '/v1/messages');
    assert.ok(
      seen?.authorization === 'Bearer sk-ant-test' || seen?.apiKeyHeader === 'sk-ant-test',
      'the key is sent',
    );
    assert.equal(seen?.body.system, 'SYSTEM PROMPT v1');
    assert.equal(seen?.body.model, 'claude-3-5-haiku-latest');
    assert.deepEqual(seen?.body.messages, [{ role: 'user', content: 'Where is my order?' }]);
  });

  test('Anthropic: input_json_delta fragments become complete tool calls; results map to tool_result blocks', async () => {
    fake.setScript([
      {
        kind: 'tool_calls',
        text: 'Let me check.',
        argumentChunks: 5,
        calls: [{ id: 'toolu_1', name: 'lookup_order', arguments: '{"order_id":"77","email":"a@b.c"}' }],
      },
    ]);
    const { events, error } = await drain(anthropic(), TOOL_TURNS);
    assert.equal(error, null);
    assert.deepEqual(events, [
      { type: 'token', text: 'Let me check.' },
      {
        type: 'tool_calls',
        calls: [{ id: 'toolu_1', name: 'lookup_order', arguments: '{"order_id":"77","email":"a@b.c"}' }],
      },
      { type: 'end', finishReason: 'tool_calls' },
    ]);
    const body = fake.requests.filter((request) => request.api === 'anthropic').at(-1)?.body;
    assert.deepEqual(body?.tools, [
      { name: TOOL.name, description: TOOL.description, input_schema: TOOL.parameters },
    ]);
    assert.deepEqual(body?.messages, [
      { role: 'user', content: 'Order 42?' },
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_a', name: 'lookup_order', input: { order_id: '42' } }],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'call_a', content: '{"status":"shipped"}' }],
      },
    ]);
  });

  test('Anthropic: HTTP 500 and a hang are LlmErrors before streaming', async () => {
    fake.setScript([{ kind: 'status', status: 529 }]);
    const failed = await drain(anthropic());
    assert.match(
      failed.error?.message ?? '',
      /anthropic:claude-3-5-haiku-latest: upstream answered HTTP 529/,
    );
    assert.equal(failed.error?.hasStreamed, false);
    fake.setScript([{ kind: 'hang' }]);
    const hung = await drain(anthropic(300));
    assert.match(hung.error?.message ?? '', /no answer within 300 ms/);
    assert.equal(hung.error?.hasStreamed, false);
  });

  test('Anthropic: a connection dropped mid-stream is an LlmError with hasStreamed', async () => {
    fake.setScript([{ kind: 'drop', chunks: ['Half'] }]);
    const { events, error } = await drain(anthropic());
    assert.deepEqual(tokens(events), ['Half']);
    assert.equal(error?.hasStreamed, true);
  });
});
