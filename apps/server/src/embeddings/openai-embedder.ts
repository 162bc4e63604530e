import { request } from 'undici';
import { z } from 'zod';
import type { EmbeddingProvider } from './embedding-provider.js';

/** Default base URL when only a key is configured. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Default model when none is configured. */
export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small';
/** Budget of one `/embeddings` call. */
export const EMBEDDINGS_TIMEOUT_MS = 30_000;
/** Largest response read from the embeddings server. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const ZEmbeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

/** Settings of an OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, vLLM, TEI, …). */
export type OpenAiEmbedderOptions = {
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  model?: string | undefined;
  /** Sent as `dimensions` (models that support shortening); otherwise the model's own. */
  dimensions?: number | undefined;
  minSimilarity?: number | undefined;
  timeoutMs?: number | undefined;
};

/**
 * An embedding provider over an OpenAI-compatible `POST {base}/embeddings`. The base URL is
 * operator configuration (often a local Ollama or TEI), so it is not put through the crawl
 * guard. Errors never include the API key.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): EmbeddingProvider {
  const base = (options.baseUrl ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  const model = options.model ?? OPENAI_DEFAULT_MODEL;
  const dimensions = options.dimensions ?? null;
  const timeoutMs = options.timeoutMs ?? EMBEDDINGS_TIMEOUT_MS;
  const host = new URL(base).host;
  return {
    key: `openai:${host}:${model}:${dimensions ?? 'native'}`,
    dimensions,
    maxBatch: 64,
    semantic: true,
    minSimilarity: options.minSimilarity ?? 0.2,
    async embed(texts, callOptions = {}) {
      if (texts.length === 0) return [];
      const response = await request(`${base}/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model,
          input: texts,
          encoding_format: 'float',
          ...(dimensions !== null ? { dimensions } : {}),
        }),
        // The call's own budget bounds each phase; the caller's signal (a query's shorter budget) aborts it all.
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      });
      const text = await readCapped(response.body, MAX_RESPONSE_BYTES);
      if (response.statusCode < 200 || response.statusCode > 299) {
        throw new Error(`embeddings server answered HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
      }
      const parsed = ZEmbeddingsResponse.safeParse(safeJson(text));
      if (!parsed.success) throw new Error('embeddings server answered with an unexpected body');
      const vectors: number[][] = new Array(texts.length);
      for (const item of parsed.data.data) {
        if (item.index < texts.length) vectors[item.index] = item.embedding;
      }
      const first = vectors[0]?.length ?? 0;
      for (let i = 0; i < texts.length; i += 1) {
        const vector = vectors[i];
        if (!vector || vector.length === 0 || vector.length !== first) {
          throw new Error('embeddings server returned missing or uneven vectors');
        }
        if (dimensions !== null && vector.length !== dimensions) {
          throw new Error(`embeddings server returned ${vector.length} dimensions, not ${dimensions}`);
        }
      }
      return vectors;
    },
  };
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of body) {
    size += part.length;
    if (size > maxBytes) throw new Error('embeddings response is too large');
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
