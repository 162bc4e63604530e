/**
 * Turns texts into vectors. Vectors of different `key`s live in different spaces and are never
 * compared: a provider change (model, dimension, server) re-embeds every agent's chunks.
 */
export type EmbeddingProvider = {
  /** Names the vector space: provider, model and dimension. Stored with every vector. */
  readonly key: string;
  /** The dimension when known before the first call (the HNSW index is built for it). */
  readonly dimensions: number | null;
  /** Most texts one `embed` call takes. */
  readonly maxBatch: number;
  /**
   * Whether the vectors carry meaning beyond the words (a model's), or are a hashing of the
   * words themselves (the offline embedder), which the full-text ranking already covers: the
   * search uses the latter only when asked (`lexicalVectors`).
   */
  readonly semantic: boolean;
  /** Below this cosine similarity a chunk is not a vector hit (unrelated text is still "nearest"). */
  readonly minSimilarity: number;
  /** One vector per text, in order. Rejects on any failure; never returns a partial answer. */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
};

/** pgvector's text form of a vector: `[0.1,0.2,…]`. Non-finite numbers are refused. */
export function toVectorLiteral(vector: readonly number[]): string {
  for (const value of vector) {
    if (!Number.isFinite(value)) throw new Error('an embedding holds a non-finite number');
  }
  return `[${vector.join(',')}]`;
}
