import type { Kysely } from 'kysely';
import type { Config, KeyedConfig } from '../config/config.js';
import type { DB } from '../db/schema.js';
import { ANTHROPIC_PUBLIC_BASE_URL, createAnthropicProvider } from '../llm/anthropic-provider.js';
import { withFailover } from '../llm/failover.js';
import type { FetchLike } from '../llm/guard-stream.js';
import type { LlmProvider } from '../llm/llm-provider.js';
import { createOpenAiProvider, OPENAI_PUBLIC_BASE_URL } from '../llm/openai-provider.js';
import { createSecretKeyring, type SecretKeyring } from '../security/secret-keyring.js';
import { activeLlmKey, type WorkspaceLlmKey } from '../services/accounts/llm-keys.js';

/** The model settings `serverProvider` and `resolveProvider` read from the config. */
export type LlmConfig = Pick<Config, 'llm'>;

/** One model endpoint: which API, where, with which key and model. */
export type ProviderSettings = {
  provider: 'openai' | 'anthropic';
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  model?: string | undefined;
  timeoutMs: number;
  fetch?: FetchLike | undefined;
};

/** Builds one provider from its settings (an Anthropic one without a key fails at config parsing). */
export function createProvider(settings: ProviderSettings): LlmProvider {
  if (settings.provider === 'openai') return createOpenAiProvider(settings);
  if (!settings.apiKey) throw new Error('an Anthropic provider needs an API key');
  return createAnthropicProvider({ ...settings, apiKey: settings.apiKey });
}

/**
 * The operator's provider (LLM_*), wrapped in `withFailover` when LLM_FALLBACK_* names a
 * second one; null when LLM_PROVIDER is `offline` (answers are then extractive).
 */
export function serverProvider(config: LlmConfig, options: { fetch?: FetchLike } = {}): LlmProvider | null {
  const { llm } = config;
  if (llm.provider === 'offline') return null;
  const primary = createProvider({
    provider: llm.provider,
    baseUrl: llm.baseUrl,
    apiKey: llm.apiKey,
    model: llm.model,
    timeoutMs: llm.timeoutMs,
    fetch: options.fetch,
  });
  if (!llm.fallback) return primary;
  const secondary = createProvider({ ...llm.fallback, timeoutMs: llm.timeoutMs, fetch: options.fetch });
  return withFailover(primary, secondary);
}

// One client per configuration: building an SDK client (and its connection pool) per answer costs
// milliseconds on the path to the first token. Streams carry their own labels (`answeringLabel`).
const sharedProviders = new WeakMap<LlmConfig, LlmProvider | null>();

function sharedServerProvider(config: LlmConfig): LlmProvider | null {
  if (!sharedProviders.has(config)) sharedProviders.set(config, serverProvider(config));
  return sharedProviders.get(config) ?? null;
}

/**
 * The provider answers of a workspace use. The workspace's own key (BYOK) applies only while
 * an owner of the workspace has `byok_enabled` and APP_KEY opens the key; it is sent to
 * LLM_BASE_URL only when the server's provider is of the same kind (the operator's gateway),
 * otherwise to the provider's public API — never to an address a tenant chose (SSRF). Without
 * an active key: the server's provider. Null means offline (the caller answers extractively).
 * The server's provider is built once per configuration; read who answered a stream with
 * `answeringLabel(stream, provider)`.
 */
export async function resolveProvider(options: {
  db: Kysely<DB>;
  config: LlmConfig & Pick<KeyedConfig, 'appKey' | 'appKeyPrevious'>;
  workspaceId: string;
  /** Injectable for tests; defaults to global fetch. */
  fetch?: FetchLike;
  /** Defaults to APP_KEY (and APP_KEY_PREVIOUS) from the config. */
  keys?: SecretKeyring;
}): Promise<LlmProvider | null> {
  const { config } = options;
  const keys = options.keys ?? createSecretKeyring(config.appKey, config.appKeyPrevious);
  const own = await activeLlmKey({ db: options.db, keys, workspaceId: options.workspaceId });
  return providerForKey(config, own, options.fetch);
}

/**
 * The provider for a workspace whose active key (`activeLlmKey`, or `openActiveLlmKey` of a row
 * read alongside other things) is `own`: the rules of {@link resolveProvider}, without the read.
 */
export function providerForKey(
  config: LlmConfig,
  own: WorkspaceLlmKey | null,
  fetch?: FetchLike,
): LlmProvider | null {
  const fetchOption = fetch ? { fetch } : {};
  if (!own) return fetch ? serverProvider(config, fetchOption) : sharedServerProvider(config);
  const sameKind = config.llm.provider === own.provider;
  const publicBase = own.provider === 'openai' ? OPENAI_PUBLIC_BASE_URL : ANTHROPIC_PUBLIC_BASE_URL;
  return createProvider({
    provider: own.provider,
    baseUrl: sameKind && config.llm.baseUrl ? config.llm.baseUrl : publicBase,
    apiKey: own.apiKey,
    model: own.model ?? (sameKind ? config.llm.model : undefined),
    timeoutMs: config.llm.timeoutMs,
    fetch,
  });
}
