import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverProvider } from '../src/chat/llm-providers.js';
import { loadConfig } from '../src/config/config.js';
import { createAnthropicProvider } from '../src/llm/anthropic-provider.js';
import { answeringLabel, withFailover } from '../src/llm/failover.js';
import { type CompletionRequest, LlmError, type LlmEvent } from '../src/llm/llm-provider.js';
import { createOpenAiProvider } from '../src/llm/openai-provider.js';
import { type FakeLlm, startFakeLlm } from './support/fake-llm.js';

const REQUEST: CompletionRequest = { system: 'S', messages: [{ role: 'user', content: 'Hi' }] };

async function drain(stream: AsyncIterable<LlmEvent>) {
  const text: string[] = [];
  try {
    for await (const event of stream) if (event.type === 'token') text.push(event.text);
    return { text: text.join(''), error: null };
  } catch (error) {
    assert.ok(error instanceof LlmError, String(error));
    return { text: text.join(''), error };
  }
}

describe('withFailover', () => {
  let first: FakeLlm;
  let second: FakeLlm;
  before(async () => {
    first = await startFakeLlm();
    second = await startFakeLlm();
  });
  after(async () => {
    await first.close();
    await second.close();
  });

  const pair = () =>
    withFailover(
      createOpenAiProvider({
        baseUrl: first.openAiBaseUrl,
        apiKey: 'sk-1',
        model: 'primary-model',
        timeoutMs: 400,
      }),
      createAnthropicProvider({
        baseUrl: second.baseUrl,
        apiKey: 'sk-2',
        model: 'secondary-model',
        timeoutMs: 400,
      }),
    );
  const counts = () => ({ first: first.requests.length, second: second.requests.length });
  const delta = (before: { first: number; second: number }) => ({
    first: first.requests.length - before.first,
    second: second.requests.length - before.second,
  });

  test('the primary answers: the secondary is never called, the label names the primary', async () => {
    first.setScript([{ kind: 'text', chunks: ['from ', 'primary'] }]);
    const start = counts();
    const provider = pair();
    assert.equal(provider.lastLabel, null);
    const stream = provider.stream(REQUEST);
    assert.deepEqual(await drain(stream), { text: 'from primary', error: null });
    assert.deepEqual(delta(start), { first: 1, second: 0 });
    assert.equal(stream.answeredBy, 'openai:primary-model');
    assert.equal(answeringLabel(stream, provider), 'openai:primary-model');
    assert.equal(provider.label, 'openai:primary-model');
  });

  test('the primary fails before streaming (HTTP 500): the secondary answers, once', async () => {
    first.setScript([{ kind: 'status', status: 500 }]);
    second.setScript([{ kind: 'text', chunks: ['from ', 'secondary'] }]);
    const start = counts();
    const provider = pair();
    const stream = provider.stream(REQUEST);
    assert.deepEqual(await drain(stream), { text: 'from secondary', error: null });
    assert.deepEqual(delta(start), { first: 1, second: 1 });
    assert.equal(stream.answeredBy, 'anthropic:secondary-model');
    assert.equal(provider.label, 'anthropic:secondary-model');
    assert.equal(provider.lastLabel, 'anthropic:secondary-model');
    assert.equal(second.requests.at(-1)?.body.system, 'S', 'the same request goes to the secondary');
  });

  test('a primary timeout before the first token also fails over', async () => {
    first.setScript([{ kind: 'hang' }]);
    second.setScript([{ kind: 'text', chunks: ['late but fine'] }]);
    const start = counts();
    const stream = pair().stream(REQUEST);
    assert.deepEqual(await drain(stream), { text: 'late but fine', error: null });
    assert.deepEqual(delta(start), { first: 1, second: 1 });
  });

  test('a failure after streaming began is rethrown: no second answer', async () => {
    first.setScript([{ kind: 'drop', chunks: ['Half an ans'] }]);
    second.setScript([{ kind: 'text', chunks: ['never'] }]);
    const start = counts();
    const stream = pair().stream(REQUEST);
    const { text, error } = await drain(stream);
    assert.equal(text, 'Half an ans');
    assert.equal(error?.hasStreamed, true);
    assert.deepEqual(delta(start), { first: 1, second: 0 });
    assert.equal(stream.answeredBy, 'openai:primary-model');
  });

  test('both fail: one try each, and the error names both', async () => {
    first.setScript([{ kind: 'status', status: 503 }]);
    second.setScript([{ kind: 'status', status: 500 }]);
    const start = counts();
    const { error } = await drain(pair().stream(REQUEST));
    assert.match(
      error?.message ?? '',
      /openai:primary-model: upstream answered HTTP 503; then anthropic:secondary-model/,
    );
    assert.equal(error?.hasStreamed, false);
    assert.deepEqual(delta(start), { first: 1, second: 1 });
  });

  test('a cancelled call does not fail over', async () => {
    first.setScript([{ kind: 'hang' }]);
    const start = counts();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { error } = await drain(pair().stream({ ...REQUEST, signal: controller.signal }));
    assert.match(error?.message ?? '', /cancelled/);
    assert.deepEqual(delta(start), { first: 1, second: 0 });
  });

  test('serverProvider: offline is null; a fallback makes a failover pair', async () => {
    const base = { DATA_DIR: '/tmp/unused', LOG_LEVEL: 'silent' };
    assert.equal(serverProvider(loadConfig(base)), null);
    const single = serverProvider(
      loadConfig({ ...base, LLM_PROVIDER: 'openai', LLM_BASE_URL: first.openAiBaseUrl, LLM_MODEL: 'm1' }),
    );
    assert.equal(single?.label, 'openai:m1');
    const paired = serverProvider(
      loadConfig({
        ...base,
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: first.openAiBaseUrl,
        LLM_MODEL: 'm1',
        LLM_FALLBACK_PROVIDER: 'anthropic',
        LLM_FALLBACK_BASE_URL: second.baseUrl,
        LLM_FALLBACK_API_KEY: 'sk-fallback',
        LLM_FALLBACK_MODEL: 'm2',
      }),
    );
    assert.ok(paired);
    first.setScript([{ kind: 'status', status: 500 }]);
    second.setScript([{ kind: 'text', chunks: ['fallback answer'] }]);
    const stream = paired.stream(REQUEST);
    assert.deepEqual(await drain(stream), { text: 'fallback answer', error: null });
    assert.equal(answeringLabel(stream, paired), 'anthropic:m2');
  });

  test('the fake also answers non-streamed OpenAI requests with one JSON body', async () => {
    first.setScript([
      { kind: 'tool_calls', text: 'hmm', calls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }] },
    ]);
    const res = await fetch(`${first.openAiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'x', messages: [] }),
    });
    assert.equal(res.status, 200);
    const body: unknown = await res.json();
    assert.deepEqual(body, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'fake-model',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'hmm',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });
});
