/**
 * Indexing throughput on the embedded store: documents through the real index job
 * (`indexDocumentJob.handle`: chunking, SHA-256, `to_tsvector`, replacing the old chunks in one
 * transaction) and the real embedding job (`embedChunksJob.handle` with the offline hashed
 * embedder, 256-d), with every index a running service has (full-text GIN, trigram GIN, HNSW).
 *
 * Side by side in one run: an in-memory floor (the same chunking, hashing and embedding with no
 * database), the first index, the embedding run, a re-index of the unchanged documents (the job
 * skips a document indexed at its current hash, so this should be nearly free), and a re-index
 * of the same documents with one paragraph changed each (chunks replaced; only the new chunk
 * texts need a vector). Ratios are to the first index.
 *
 * Run: `npm run bench:indexing` (`-- --documents 500` for a quicker run). Nothing passes or fails
 * on time; it exits non-zero only if a check voids the numbers.
 */
import { cpus, loadavg } from 'node:os';
import { sql } from 'kysely';
import { systemClock } from '../../apps/server/src/clock.js';
import { ensureOptionalSchema } from '../../apps/server/src/db/optional-schema.js';
import { createHashedEmbedder, embedText } from '../../apps/server/src/embeddings/index.js';
import { chunkText } from '../../apps/server/src/ingest/chunk-text.js';
import { embedChunksJob } from '../../apps/server/src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../../apps/server/src/jobs/index-document.js';
import type { JobContextOf, JobQueue } from '../../apps/server/src/queue/job-queue.js';
import { sha256Hex } from '../../apps/server/src/security/hashing.js';
import { newId } from '../../apps/server/src/security/ids.js';
import { createRandom, documentText, prose, TOPIC_COUNT } from './support/corpus.js';
import { startBenchQueue } from './support/embedded-store.js';
import { argument, formatRate, formatRatio, markdownTable, positiveIntegers } from './support/latency.js';
import {
  insertDocuments,
  type NewDocument,
  openRetrievalStore,
  type RetrievalStore,
  silentLog,
  timed,
} from './support/retrieval-store.js';

const DOCUMENTS = positiveIntegers(argument('documents'), [2_000], '--documents')[0] ?? 2_000;
const MIN_WORDS = 600;
const MAX_WORDS = 1_500;

const embedder = createHashedEmbedder();

/** One row of the results: what ran, on how many documents and chunks, in how long. */
type Phase = { name: string; documents: number; chunks: number; ms: number };

/** The documents' texts, from a fixed seed. */
function corpus(): NewDocument[] {
  const random = createRandom(11);
  return Array.from({ length: DOCUMENTS }, (_, i) => ({
    id: newId(),
    externalId: `doc-${i + 1}`,
    title: `Document ${i + 1}`,
    text: documentText(random, random.int(TOPIC_COUNT), MIN_WORDS + random.int(MAX_WORDS - MIN_WORDS + 1)),
  }));
}

/** The same work with no database: chunking, hashing and embedding every chunk in memory. */
function inMemoryFloor(documents: readonly NewDocument[]): Phase {
  const started = performance.now();
  let chunks = 0;
  for (const doc of documents) {
    for (const piece of chunkText(doc.text)) {
      sha256Hex(piece);
      embedText(piece, embedder.dimensions ?? 256);
      chunks += 1;
    }
  }
  return {
    name: 'in-memory floor: chunk + hash + embed, no database',
    documents: documents.length,
    chunks,
    ms: performance.now() - started,
  };
}

function embedContext(rs: RetrievalStore): JobContextOf<'embeddings' | 'clock'> {
  return { db: rs.db, clock: systemClock, log: silentLog, jobId: 'bench', attempt: 1, embeddings: embedder };
}

/**
 * Runs the index job for every document, one after the other (the embedded store has one
 * connection). Each job sends the agent's embedding run to `queue` as in the service (a real
 * queue that runs nothing; repeats collapse on the agent's key).
 */
async function indexAll(
  rs: RetrievalStore,
  queue: JobQueue,
  documents: readonly NewDocument[],
): Promise<number> {
  const context = { ...embedContext(rs), queue };
  const { ms } = await timed(async () => {
    for (const doc of documents) await indexDocumentJob.handle({ documentId: doc.id }, context);
  });
  return ms;
}

async function embedAll(rs: RetrievalStore): Promise<number> {
  const { ms } = await timed(() => embedChunksJob.handle({ agentId: rs.agent.agentId }, embedContext(rs)));
  return ms;
}

async function count(rs: RetrievalStore, table: 'chunks' | 'embeddings'): Promise<number> {
  const row = await rs.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('agent_id', '=', rs.agent.agentId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A fingerprint of the agent's chunk rows (ids and hashes): equal before and after means nothing was rewritten. */
async function chunkFingerprint(rs: RetrievalStore): Promise<string> {
  const result = await sql<{ fingerprint: string }>`
    select md5(string_agg(id || ':' || content_hash, ',' order by id)) as fingerprint
    from chunks where agent_id = ${rs.agent.agentId}`.execute(rs.db);
  return result.rows[0]?.fingerprint ?? '';
}

async function main(): Promise<number> {
  const cpuList = cpus();
  console.log(
    `Indexing: node ${process.version}, ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `load average ${loadavg()[0]?.toFixed(1)}; ${DOCUMENTS} documents of ${MIN_WORDS}–${MAX_WORDS} words`,
  );
  const documents = corpus();
  const floor = inMemoryFloor(documents);
  const rs = await openRetrievalStore();
  const queue = await startBenchQueue(rs.store);
  const problems: string[] = [];
  try {
    // The schema a running service has: embeddings table, trigram GIN and the HNSW index.
    await ensureOptionalSchema(rs.db, { trigram: true, vector: true }, embedder.dimensions);
    await insertDocuments(rs.db, rs.agent, documents, { indexed: false });

    const phases: Phase[] = [floor];
    const firstMs = await indexAll(rs, queue, documents);
    const chunks = await count(rs, 'chunks');
    phases.push({ name: 'first index (indexDocumentJob)', documents: DOCUMENTS, chunks, ms: firstMs });
    const embedMs = await embedAll(rs);
    const vectors = await count(rs, 'embeddings');
    phases.push({
      name: 'embedding (embedChunksJob, hashed 256-d)',
      documents: DOCUMENTS,
      chunks: vectors,
      ms: embedMs,
    });
    phases.push({ name: 'first index + embedding', documents: DOCUMENTS, chunks, ms: firstMs + embedMs });

    const before = await chunkFingerprint(rs);
    const reindexMs = await indexAll(rs, queue, documents);
    const reembedMs = await embedAll(rs);
    if ((await chunkFingerprint(rs)) !== before)
      problems.push('re-index of unchanged documents rewrote chunks');
    phases.push({
      name: 're-index unchanged (skipped at hash)',
      documents: DOCUMENTS,
      chunks,
      ms: reindexMs,
    });
    phases.push({ name: 're-embed, nothing missing', documents: DOCUMENTS, chunks, ms: reembedMs });

    // One paragraph changed per document: the job replaces all its chunks; only new texts get vectors.
    const random = createRandom(12);
    const changed = documents.map((doc) => ({
      ...doc,
      text: `${doc.text}\n\n${prose(random, random.int(TOPIC_COUNT), 60)}`,
    }));
    for (const doc of changed) {
      await rs.db
        .updateTable('documents')
        .set({ content_text: doc.text, content_hash: sha256Hex(doc.text), index_status: 'pending' })
        .where('id', '=', doc.id)
        .execute();
    }
    const changedMs = await indexAll(rs, queue, changed);
    const changedChunks = await count(rs, 'chunks');
    const missing = await sql<{ n: string }>`
      select count(distinct c.content_hash) as n from chunks c
      where c.agent_id = ${rs.agent.agentId}
        and not exists (select 1 from embeddings e where e.agent_id = c.agent_id and e.content_hash = c.content_hash)`.execute(
      rs.db,
    );
    const newTexts = Number(missing.rows[0]?.n ?? 0);
    const { ms: changedEmbedMs } = await timed(() =>
      embedChunksJob.handle({ agentId: rs.agent.agentId }, embedContext(rs)),
    );
    const vectorsAfter = await count(rs, 'embeddings');
    phases.push({
      name: 're-index, one paragraph changed each',
      documents: DOCUMENTS,
      chunks: changedChunks,
      ms: changedMs,
    });
    phases.push({
      name: `re-embed after the change (${newTexts} new chunk texts embedded)`,
      documents: DOCUMENTS,
      chunks: newTexts,
      ms: changedEmbedMs,
    });
    if (vectorsAfter !== changedChunks)
      problems.push(`expected ${changedChunks} vectors after the change, found ${vectorsAfter}`);

    const rows = phases.map((phase) => [
      phase.name,
      String(phase.documents),
      String(phase.chunks),
      (phase.ms / 1000).toFixed(2),
      formatRate(phase.documents, phase.ms),
      formatRate(phase.chunks, phase.ms),
      formatRatio(phase.ms / firstMs),
    ]);
    console.log(
      `\n${markdownTable(['phase', 'documents', 'chunks', 'seconds', 'documents/s', 'chunks/s', 'time vs first index'], rows)}\n`,
    );
    console.log(`first index: ${formatRatio(firstMs / floor.ms)} the time of the in-memory floor`);
    console.log(
      `re-index of unchanged documents: ${formatRatio(reindexMs / firstMs)} the time of the first index`,
    );
    console.log(
      `load average at the end: ${loadavg()[0]?.toFixed(1)} (other work on the machine skews absolute numbers)`,
    );
  } finally {
    await queue.stop(1_000);
    await rs.store.close();
  }
  for (const problem of problems) console.error(`${problem}; the numbers are void`);
  return problems.length > 0 ? 1 : 0;
}

process.exitCode = await main();
