import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config/config.js';

describe('loadConfig: widget and model settings', () => {
  test('TRUST_PROXY: off by default; true, false or an address list', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: '10.0.0.1, 10.1.0.0/16' }).trustProxy, '10.0.0.1,10.1.0.0/16');
    assert.throws(
      () => loadConfig({ TRUST_PROXY: 'yes please' }),
      (error: unknown) => error instanceof ConfigError && /TRUST_PROXY/.test(error.message),
    );
  });

  test('WIDGET_RATE_LIMIT_SCALE: 1 by default, positive, bounded', () => {
    assert.equal(loadConfig({}).widgetRateLimitScale, 1);
    assert.equal(loadConfig({ WIDGET_RATE_LIMIT_SCALE: '100' }).widgetRateLimitScale, 100);
    for (const bad of ['0', '-1', 'many', '1000000']) {
      assert.throws(() => loadConfig({ WIDGET_RATE_LIMIT_SCALE: bad }), ConfigError, bad);
    }
  });

  test('LLM fallback and timeout', () => {
    const config = loadConfig({
      LLM_PROVIDER: 'openai',
      LLM_BASE_URL: 'http://127.0.0.1:11434/v1',
      LLM_FALLBACK_PROVIDER: 'anthropic',
      LLM_FALLBACK_API_KEY: 'sk-ant',
      LLM_TIMEOUT_MS: '15000',
    });
    assert.deepEqual(config.llm.fallback, {
      provider: 'anthropic',
      baseUrl: undefined,
      apiKey: 'sk-ant',
      model: undefined,
    });
    assert.equal(config.llm.timeoutMs, 15_000);
    assert.equal(loadConfig({}).llm.fallback, undefined);
    assert.equal(loadConfig({}).llm.timeoutMs, 60_000);
    assert.throws(() => loadConfig({ LLM_FALLBACK_PROVIDER: 'anthropic' }), /LLM_FALLBACK_PROVIDER/);
    assert.throws(() => loadConfig({ LLM_FALLBACK_PROVIDER: 'openai' }), /LLM_FALLBACK_PROVIDER/);
    assert.throws(() => loadConfig({ LLM_TIMEOUT_MS: '10' }), /LLM_TIMEOUT_MS/);
  });
});
