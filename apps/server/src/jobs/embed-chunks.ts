import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Queryable } from '../db/queryable.js';
import { type EmbeddingProvider, toVectorLiteral } from '../embeddings/index.js';
import { defineJob, type JobContextOf, type JobQueue } from '../queue/job-queue.js';
import { EMBED_RETRY_LIMIT, embedChunksSpec } from '../queue/job-specs.js';
import { reopenVectorlessSources, settleSources } from '../services/knowledge/source-run.js';

/** An embedding run that wrote at least this many vectors refreshes the planner statistics. */
const ANALYZE_AFTER = 1000;

/**
 * Vectors written per statement. Each vector also goes into its dimension's HNSW index, about
 * 1.5 ms a vector on the embedded store, whose one backend runs nothing else meanwhile: a
 * provider's whole batch (256 offline) in one insert held every search and answer for up to
 * half a second (`bench:load`: admin search p95 16× its idle figure while a site indexed, 1.2×
 * with eight). Eight keep each statement near ten milliseconds, and interactive
 * statements run between them (the store's scheduler puts them first).
 */
export const EMBEDDING_WRITE_ROWS = 8;

/**
 * Embeds an agent's chunk texts that have no vector under the active provider, a batch at a
 * time (provider calls happen outside any transaction, so a slow embeddings server never holds
 * the store), then drops vectors no chunk uses any more and vectors of other providers. Keyed
 * per agent: however many documents are indexed at once, one run catches up with all of them.
 * At the end it settles the agent's `indexing` sources (their vectors are now written), and
 * those an earlier run gave up on (they lose its note once complete). When its last attempt
 * fails (or the run fails for good otherwise: out of time, interrupted), the `indexing` ones are
 * settled without vectors and their `error` says so.
 */
export const embedChunksJob = defineJob({
  ...embedChunksSpec,
  async handle(
    { agentId },
    {
      db,
      log,
      embeddings,
      attempt,
      clock,
      queue,
    }: JobContextOf<'embeddings' | 'clock'> & { queue?: JobQueue },
  ) {
    if (!embeddings) return;
    try {
      await embedAgentChunks(db, log, embeddings, agentId);
    } catch (error) {
      if (attempt > EMBED_RETRY_LIMIT) {
        log.error({ err: error, agentId }, 'chunks could not be embedded; giving up');
        await settleSources(db, await indexingSourcesOf(db, agentId), { embeddingsFailed: true });
      }
      throw error;
    }
    // Sources an earlier run gave up on carry its note: settled again, they lose it when complete.
    await db.transaction().execute(async (trx) => {
      await reopenVectorlessSources(trx, clock, agentId);
      await settleSources(trx, await indexingSourcesOf(trx, agentId), {
        embeddingsKey: embeddings.key,
        ...(queue ? { evaluations: { queue, clock } } : {}),
      });
    });
  },
  async giveUp({ agentId }, { db, embeddings }) {
    // Sources waiting for these vectors would otherwise stay `indexing`; they settle as usable
    // (full-text search) with the note in `error`, never as plainly `indexed`.
    if (!embeddings) return false;
    const settled = await settleSources(db, await indexingSourcesOf(db, agentId), { embeddingsFailed: true });
    return settled > 0;
  },
});

/** The agent's sources waiting for their documents' index jobs or vectors. */
async function indexingSourcesOf(db: Queryable, agentId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('sources')
    .select('id')
    .where('agent_id', '=', agentId)
    .where('status', '=', 'indexing')
    .execute();
  return rows.map((row) => row.id);
}

async function embedAgentChunks(
  db: Queryable,
  log: Logger,
  embeddings: EmbeddingProvider,
  agentId: string,
): Promise<void> {
  let after = '';
  let embedded = 0;
  for (;;) {
    const batch = await sql<{ content_hash: string; content: string; workspace_id: string }>`
        select distinct on (c.content_hash) c.content_hash, c.content, c.workspace_id
        from chunks c
        where c.agent_id = ${agentId}
          and c.content_hash > ${after}
          and not exists (
            select 1 from embeddings e
            where e.agent_id = c.agent_id and e.model = ${embeddings.key} and e.content_hash = c.content_hash)
        order by c.content_hash
        limit ${embeddings.maxBatch}`.execute(db);
    const rows = batch.rows;
    const last = rows.at(-1);
    if (!last) break;
    after = last.content_hash;
    const vectors = await embeddings.embed(rows.map((row) => row.content));
    const values = rows.map((row, index) => {
      const vector = vectors[index] ?? [];
      return {
        agent_id: agentId,
        workspace_id: row.workspace_id,
        model: embeddings.key,
        content_hash: row.content_hash,
        dims: vector.length,
        embedding: toVectorLiteral(vector),
      };
    });
    for (let start = 0; start < values.length; start += EMBEDDING_WRITE_ROWS) {
      await db
        .insertInto('embeddings')
        .values(values.slice(start, start + EMBEDDING_WRITE_ROWS))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    embedded += rows.length;
  }
  const removed = await sql`
      delete from embeddings e
      where e.agent_id = ${agentId}
        and (e.model <> ${embeddings.key}
          or not exists (select 1 from chunks c where c.agent_id = e.agent_id and c.content_hash = e.content_hash))`.execute(
    db,
  );
  // The embedded store has no autovacuum: after a bulk load its planner statistics are stale
  // (or absent) and search plans go badly wrong, so refresh them here.
  if (embedded >= ANALYZE_AFTER) await sql`analyze chunks, embeddings, agent_words`.execute(db);
  log.debug({ agentId, embedded, removed: Number(removed.numAffectedRows ?? 0) }, 'chunks embedded');
}

/**
 * How long an embedding run queued by an index job waits, so the documents indexed meanwhile
 * join it: a crawl's index jobs then make a run every second or so, each embedding hundreds of
 * chunks, instead of one small run per document (each run ends with a scan of the agent's
 * chunks and settles its sources).
 */
export const EMBED_GATHER_SECONDS = 1;

/**
 * Queues an agent's embedding run (inside the caller's transaction when given one), due after
 * `gatherSeconds` (default: at once).
 */
export async function queueEmbedding(
  queue: JobQueue,
  embeddings: EmbeddingProvider | null | undefined,
  agentId: string,
  db?: Queryable,
  gatherSeconds = 0,
): Promise<void> {
  if (!embeddings) return;
  await queue.send(
    embedChunksJob,
    { agentId },
    {
      key: agentId,
      ...(db ? { db } : {}),
      ...(gatherSeconds > 0 ? { startAfterSeconds: gatherSeconds } : {}),
    },
  );
}

/**
 * Queues a run for every agent with a chunk text lacking a vector under the active provider:
 * after a provider change this re-embeds everything, and it picks up runs that gave up.
 */
export async function queueMissingEmbeddings(
  db: Queryable,
  queue: JobQueue,
  embeddings: EmbeddingProvider | null,
): Promise<number> {
  if (!embeddings) return 0;
  const agents = await sql<{ id: string }>`
    select a.id from agents a
    where exists (
      select 1 from chunks c
      where c.agent_id = a.id
        and not exists (
          select 1 from embeddings e
          where e.agent_id = c.agent_id and e.model = ${embeddings.key} and e.content_hash = c.content_hash))`.execute(
    db,
  );
  await queue.sendMany(
    embedChunksJob,
    agents.rows.map((row) => ({ payload: { agentId: row.id }, key: row.id })),
  );
  return agents.rows.length;
}
