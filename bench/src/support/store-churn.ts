/**
 * Churn and maintenance for the search benchmark: re-indexes a share of an agent's documents
 * the way the index job replaces them (chunks deleted and inserted anew in one transaction,
 * the document's hash updated; then the real embedding run adds the new vectors and drops the
 * orphaned ones), so the tables hold dead rows as a running store's do; then runs the
 * maintenance job's table pass and times plain ANALYZE on the main tables.
 */
import { type Kysely, sql } from 'kysely';
import { systemClock } from '../../../apps/server/src/clock.js';
import type { DB } from '../../../apps/server/src/db/schema.js';
import type { EmbeddingProvider } from '../../../apps/server/src/embeddings/index.js';
import { embedChunksJob } from '../../../apps/server/src/jobs/embed-chunks.js';
import { maintainTables, type TableMaintenance } from '../../../apps/server/src/jobs/maintain-store.js';
import { sha256Hex } from '../../../apps/server/src/security/hashing.js';
import { chunkSizedText, createRandom, TOPIC_COUNT } from './corpus.js';
import { formatMs, markdownTable } from './latency.js';
import { insertChunks, type RetrievalStore, silentLog, type Target, timed } from './retrieval-store.js';

/** The tables the search reads, and the ones churn rewrites. */
export const MAIN_TABLES = ['documents', 'chunks', 'embeddings', 'agent_words'] as const;

/** Re-indexes `fraction` of `target`'s documents with new texts; returns how many. */
export async function churnDocuments(
  rs: RetrievalStore,
  target: Target,
  fraction: number,
  embedder: EmbeddingProvider,
  seed: number,
): Promise<{ documents: number; chunks: number }> {
  const random = createRandom(seed);
  const ids = await sql<{ id: string; n: string }>`
    select d.id, (select count(*) from chunks c where c.document_id = d.id) as n
    from documents d where d.agent_id = ${target.agentId} order by d.id`.execute(rs.db);
  const chosen = ids.rows.filter(() => random.next() < fraction);
  let chunks = 0;
  for (let start = 0; start < chosen.length; start += 100) {
    const batch = chosen.slice(start, start + 100);
    const fresh = batch.flatMap((document) => {
      const topic = random.int(TOPIC_COUNT);
      return Array.from({ length: Number(document.n) }, (_, ordinal) => ({
        documentId: document.id,
        ordinal,
        content: chunkSizedText(random, topic),
      }));
    });
    chunks += fresh.length;
    await rs.db.transaction().execute(async (trx) => {
      const batchIds = batch.map((document) => document.id);
      await trx.deleteFrom('chunks').where('document_id', 'in', batchIds).execute();
      await insertChunks(trx, target, fresh);
      for (const document of batch) {
        const text = fresh
          .filter((chunk) => chunk.documentId === document.id)
          .map((chunk) => chunk.content)
          .join('\n\n');
        const hash = sha256Hex(text);
        await trx
          .updateTable('documents')
          .set({ content_text: text, content_hash: hash, indexed_hash: hash, indexed_at: new Date() })
          .where('id', '=', document.id)
          .execute();
      }
    });
  }
  await embedChunksJob.handle(
    { agentId: target.agentId },
    { db: rs.db, clock: systemClock, log: silentLog, jobId: 'bench-churn', attempt: 1, embeddings: embedder },
  );
  // The backend reports its activity counters at most once a second, when idle: let it.
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  await sql`select 1`.execute(rs.db);
  return { documents: chosen.length, chunks };
}

/** Dead rows, changed rows and size of the main tables, as a markdown table. */
export async function tableStats(db: Kysely<DB>): Promise<string> {
  const result = await sql<{ relname: string; live: string; dead: string; changed: string; size: string }>`
    select relname, n_live_tup as live, n_dead_tup as dead, n_mod_since_analyze as changed,
      pg_size_pretty(pg_total_relation_size(relid)) as size
    from pg_stat_user_tables
    where schemaname = 'public' and relname in (${sql.join([...MAIN_TABLES])})
    order by relname`.execute(db);
  return markdownTable(
    ['table', 'n_live_tup', 'n_dead_tup', 'n_mod_since_analyze', 'total size'],
    result.rows.map((row) => [row.relname, row.live, row.dead, row.changed, row.size]),
  );
}

/** The maintenance job's table pass (the thresholds it runs with), reported table by table. */
export async function runMaintenance(db: Kysely<DB>): Promise<TableMaintenance[]> {
  const { ms, result } = await timed(() => maintainTables({ db }));
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log(`\n  maintenance job pass (maintainTables): ${(ms / 1000).toFixed(1)} s in all\n`);
  console.log(
    markdownTable(
      ['table', 'action', 'held the connection ms', 'dead before', 'dead after', 'MB before', 'MB after'],
      result.map((row) => [
        row.table,
        row.action,
        formatMs(row.ms),
        String(row.deadBefore),
        String(row.deadAfter),
        mb(row.bytesBefore),
        mb(row.bytesAfter),
      ]),
    ),
  );
  return result;
}

/** Plain ANALYZE of each main table, timed one by one (each holds the one connection). */
export async function timeAnalyze(db: Kysely<DB>): Promise<void> {
  const rows: string[][] = [];
  for (const table of MAIN_TABLES) {
    const { ms } = await timed(() => sql`analyze ${sql.id(table)}`.execute(db));
    rows.push([table, formatMs(ms)]);
  }
  console.log('\n  plain ANALYZE, table by table:\n');
  console.log(markdownTable(['table', 'ANALYZE ms'], rows));
}
