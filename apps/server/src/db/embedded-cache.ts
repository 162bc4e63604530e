import { readdir, stat } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { join } from 'node:path';

const MB = 1024 * 1024;

/** The embedded store's buffer cache never goes below PGlite's own default. */
export const MIN_CACHE_MB = 128;
/** Nor above this: the WebAssembly heap it lives in holds at most 2 GB. */
export const MAX_CACHE_MB = 1024;
/** The share of the data kept in the cache: its hot part (indexes and the rows searches read). */
const DATA_SHARE = 0.6;
/** The share of the machine's memory the cache may take. */
const MEMORY_SHARE = 0.25;

/**
 * The buffer cache (`shared_buffers`, MB) for an embedded store holding `dataBytes` on a machine
 * with `memoryBytes`: 60 % of the data, rounded up to 16 MB, between 128 MB and the smaller of
 * 1 GB and a quarter of the memory. Postgres reserves the whole cache when it starts, so a small
 * store keeps the default and a large one, whose searches would otherwise read pages from disk
 * through the WebAssembly file layer on every query, gets room for what it searches.
 */
export function embeddedCacheMb(dataBytes: number, memoryBytes: number): number {
  const ceiling = Math.max(
    MIN_CACHE_MB,
    Math.min(MAX_CACHE_MB, Math.floor((memoryBytes * MEMORY_SHARE) / MB)),
  );
  const wanted = Math.ceil((dataBytes * DATA_SHARE) / (16 * MB)) * 16;
  return Math.min(ceiling, Math.max(MIN_CACHE_MB, wanted));
}

/** Bytes of the files under `dir` (0 when it does not exist yet). */
export async function directoryBytes(dir: string): Promise<number> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 0;
    throw error;
  }
  let total = 0;
  for (const entry of entries) {
    const info = await stat(join(dir, entry)).catch(() => null);
    if (info?.isFile()) total += info.size;
  }
  return total;
}

/**
 * The cache for the embedded store in `pgdata`: `configured` when the operator set one
 * (`EMBEDDED_CACHE_MB`), else sized from its tables and indexes (`base/`, not the write-ahead log).
 */
export async function cacheMbFor(pgdata: string, configured?: number): Promise<number> {
  if (configured !== undefined) return configured;
  return embeddedCacheMb(await directoryBytes(join(pgdata, 'base')), totalmem());
}
