import type { Config } from '../config/config.js';
import type { DatabaseFeatures } from '../db/database.js';
import type { EmbeddingProvider } from './embedding-provider.js';
import { createHashedEmbedder } from './hashed-embedder.js';
import { createOpenAiEmbedder } from './openai-embedder.js';

export { type EmbeddingProvider, toVectorLiteral } from './embedding-provider.js';
export { createHashedEmbedder, embedText, HASHED_DIMENSIONS } from './hashed-embedder.js';
export { createOpenAiEmbedder } from './openai-embedder.js';

/**
 * The embedding provider the configuration selects, or null where vectors cannot be stored
 * (no pgvector: retrieval is full-text and trigram only).
 */
export function embeddingProviderFor(config: Config, features: DatabaseFeatures): EmbeddingProvider | null {
  const settings = config.embeddings;
  if (!features.vector || settings.provider === 'none') return null;
  if (settings.provider === 'openai') {
    return createOpenAiEmbedder({
      baseUrl: settings.baseUrl,
      apiKey: settings.apiKey,
      model: settings.model,
      dimensions: settings.dimensions,
    });
  }
  return createHashedEmbedder(settings.dimensions);
}
