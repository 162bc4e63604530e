/**
 * How long VACUUM of the embeddings table holds the embedded store's one connection at the
 * size a kept search-bench store has (`search.bench.ts --keep-data-dir`), with its HNSW index:
 * with no dead rows (the maintenance job's first sweep after a start), then after deleting
 * `--delete-percent` of the vectors, with `INDEX_CLEANUP OFF` (the heap only) and then in full
 * (the HNSW index walked). Run it on a copy: it deletes vectors.
 *
 * Run: `node --conditions=source --import tsx src/vacuum-embeddings.bench.ts --data-dir COPY`.
 */
import { loadavg } from 'node:os';
import { sql } from 'kysely';
import { openKeptStore } from './support/embedded-store.js';
import { argument, formatMs, markdownTable, positiveIntegers } from './support/latency.js';
import { timed } from './support/retrieval-store.js';

const DATA_DIR = argument('data-dir');
const DELETE_PERCENT = positiveIntegers(argument('delete-percent'), [25], '--delete-percent')[0] ?? 25;

async function main(): Promise<number> {
  if (!DATA_DIR) {
    console.error('--data-dir DIR (a copy of a kept search-bench store) is required');
    return 2;
  }
  const store = await openKeptStore(DATA_DIR);
  const db = store.database.db;
  const rows: string[][] = [];
  const dead = async () => {
    // The backend reports its counters at most once a second, when idle: let it.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await sql`select 1`.execute(db);
    const result = await sql<{ dead: string; live: string }>`
      select n_dead_tup as dead, n_live_tup as live from pg_stat_user_tables where relname = 'embeddings'`.execute(
      db,
    );
    return `${result.rows[0]?.dead ?? '?'} dead / ${result.rows[0]?.live ?? '?'} live`;
  };
  const step = async (name: string, statement: () => Promise<unknown>) => {
    const before = await dead();
    const load = loadavg()[0]?.toFixed(1) ?? '?';
    const { ms } = await timed(statement);
    rows.push([name, formatMs(ms), before, await dead(), load]);
    console.log(`  ${name}: ${formatMs(ms)} ms (load ${load})`);
  };
  try {
    await step('VACUUM (ANALYZE), no dead rows', () => sql`vacuum (analyze) embeddings`.execute(db));
    await step(`DELETE ${DELETE_PERCENT} % of the vectors`, () =>
      sql`delete from embeddings where abs(hashtext(content_hash)) % 100 < ${DELETE_PERCENT}`.execute(db),
    );
    await step('VACUUM (ANALYZE, INDEX_CLEANUP OFF)', () =>
      sql`vacuum (analyze, index_cleanup off) embeddings`.execute(db),
    );
    await step('VACUUM (ANALYZE), HNSW walked', () => sql`vacuum (analyze) embeddings`.execute(db));
  } finally {
    await store.close();
  }
  console.log(
    `\n${markdownTable(['step', 'held the connection ms', 'before', 'after', 'load average'], rows)}`,
  );
  return 0;
}

process.exitCode = await main();
