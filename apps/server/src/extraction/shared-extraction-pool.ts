import { EXTRACTION_DEFAULTS } from '../config/config.js';
import { MAX_TEXT_CHARS } from '../ingest/uploads/upload-text-rules.js';
import type { PoolLimits } from './bounded-pool.js';
import { createExtractionPool, type ExtractionLimits, type ExtractionPool } from './extraction-pool.js';

// One pool per process, shared by the upload route and the job worker, so EXTRACT_WORKERS
// bounds every extraction thread of the process together, whichever surface asked.
let limits: ExtractionLimits = { ...EXTRACTION_DEFAULTS, maxTextChars: MAX_TEXT_CHARS };
let shared: ExtractionPool | undefined;

/** The process-wide extraction pool, started on first use with the configured limits. */
export function extractionPool(): ExtractionPool {
  shared ??= createExtractionPool(limits);
  return shared;
}

/**
 * Sets the limits of the process-wide pool (the service does, from EXTRACT_*, at start). A
 * pool already running is closed, so the next file gets a pool with the new limits.
 */
export async function configureExtractionPool(next: PoolLimits): Promise<void> {
  limits = { ...next, maxTextChars: MAX_TEXT_CHARS };
  await closeExtractionPool();
}

/** Terminates the process-wide pool's threads (at shutdown); the next file starts a new pool. */
export async function closeExtractionPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
