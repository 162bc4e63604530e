/**
 * Retrieval: hybrid search latency on the embedded store at 10k and 100k chunks, side by side
 * with full-text alone in the same run, so the cost of each added retriever reads as a ratio.
 *
 * Per size, a fresh store gets a synthetic corpus (support/corpus.ts: Zipf vocabulary plus
 * topic words, 80–200 words a chunk, 8 chunks a document) for the measured agent, and a tenth
 * as many chunks for a neighbour agent the tenant filter must skip. Chunks are bulk-inserted as
 * the index job stores them (`to_tsvector` in SQL, SHA-256 hashes), embedded by the real
 * `embedChunksJob.handle` with the offline hashed embedder (256-d), then the full-text GIN,
 * trigram GIN and HNSW indexes are built, and the store is opened again as the service's next
 * start would (its buffer cache sized from the data). Queries (1–2 words, 3–6 words, one typo, no match)
 * run through `searchChunks` in three configurations, interleaved query by query:
 * (a) hybrid: full-text + trigram + vector; (b) full-text only; (c) full-text + trigram.
 * Each configuration runs up to `--queries` queries or `--budget-seconds` of them per phase,
 * whichever comes first (the trigram retriever can take seconds a query at 100k).
 * Each configuration is measured twice: as the embedded store runs (no column statistics:
 * PGlite has no autovacuum and the service never runs ANALYZE), then after ANALYZE. At the
 * largest size, EXPLAIN ANALYZE of each retriever's statement for one query.
 *
 * Run: `npm run bench:search` (`-- --sizes 10000 --budget-seconds 30` for a quicker run;
 * `-- --keep-data-dir DIR` keeps each size's store and reuses it next time). Nothing
 * passes or fails on time; it exits non-zero only if a check voids the numbers.
 */
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { TSearchHit } from '@service/contract';
import { sql } from 'kysely';
import { systemClock } from '../../apps/server/src/clock.js';
import type { DatabaseFeatures } from '../../apps/server/src/db/database.js';
import { ensureOptionalSchema } from '../../apps/server/src/db/optional-schema.js';
import { createHashedEmbedder, type EmbeddingProvider } from '../../apps/server/src/embeddings/index.js';
import { embedChunksJob } from '../../apps/server/src/jobs/embed-chunks.js';
import { searchChunks } from '../../apps/server/src/retrieval/search.js';
import { newId } from '../../apps/server/src/security/ids.js';
import {
  type BenchQuery,
  benchQueries,
  chunkSizedText,
  createRandom,
  QUERY_KINDS,
  TOPIC_COUNT,
} from './support/corpus.js';
import {
  argument,
  formatMs,
  formatRate,
  formatRatio,
  markdownTable,
  positiveIntegers,
  summarize,
} from './support/latency.js';
import {
  buildIndexes,
  capturingDb,
  dropFullTextIndex,
  explainAnalyze,
  insertChunks,
  insertDocuments,
  type NewChunk,
  type NewDocument,
  openKeptRetrievalStore,
  openRetrievalStore,
  pathExists,
  type RetrievalStore,
  saveKeptManifest,
  silentLog,
  type Target,
  timed,
} from './support/retrieval-store.js';
import { churnDocuments, runMaintenance, tableStats, timeAnalyze } from './support/store-churn.js';

const SIZES = positiveIntegers(argument('sizes'), [10_000, 100_000], '--sizes');
const QUERIES = positiveIntegers(argument('queries'), [240], '--queries')[0] ?? 240;
/** Discarded queries per configuration before measuring (plans cached, pages in memory). */
const WARMUP = 2;
/** Seconds of measured queries per configuration and phase at most (`--budget-seconds`). */
const BUDGET_SECONDS = positiveIntegers(argument('budget-seconds'), [90], '--budget-seconds')[0] ?? 90;
const CHUNKS_PER_DOCUMENT = 8;
const INSERT_BATCH = 1_000;
const LIMIT = 8;
/** The target: hybrid p95 at 100k chunks on the embedded store. */
const TARGET_P95_MS = 30;
const TARGET_SIZE = 100_000;
/**
 * `--churn <percent>`: at the largest size, instead of a bare ANALYZE, re-index that share of
 * the documents (dead rows, as a running store gets them), measure, run the maintenance job's
 * table pass, measure again.
 */
const CHURN_PERCENT = positiveIntegers(argument('churn'), [0], '--churn')[0] ?? 0;
/**
 * `--keep-data-dir <dir>`: each size's store lives in `<dir>/chunks-<size>` and is kept after
 * the run; a later run with the same option reuses a finished one instead of building it again
 * (the build takes most of a 100k run), as the earlier run left it.
 */
const KEEP_DATA_DIR = argument('keep-data-dir');

const embedder = createHashedEmbedder();

/** A search configuration: which retrievers run. */
type Configuration = {
  key: string;
  name: string;
  features: DatabaseFeatures;
  embeddings: EmbeddingProvider | null;
};

const CONFIGURATIONS: readonly Configuration[] = [
  { key: 'b', name: '(b) full-text only', features: { trigram: false, vector: false }, embeddings: null },
  { key: 'c', name: '(c) full-text + trigram', features: { trigram: true, vector: false }, embeddings: null },
  {
    key: 'a',
    name: '(a) hybrid: full-text + trigram + vector',
    features: { trigram: true, vector: true },
    embeddings: embedder,
  },
];

/** Bulk-loads `count` chunks (8 a document) for `target`; the seed decides the texts. */
async function loadChunks(rs: RetrievalStore, target: Target, count: number, seed: number): Promise<void> {
  const random = createRandom(seed);
  let ordinalDoc = 0;
  for (let done = 0; done < count; done += INSERT_BATCH) {
    const documents: NewDocument[] = [];
    const chunks: NewChunk[] = [];
    const batch = Math.min(INSERT_BATCH, count - done);
    for (let i = 0; i < batch; i += CHUNKS_PER_DOCUMENT) {
      const topic = random.int(TOPIC_COUNT);
      const id = newId();
      const texts = Array.from({ length: Math.min(CHUNKS_PER_DOCUMENT, batch - i) }, () =>
        chunkSizedText(random, topic),
      );
      ordinalDoc += 1;
      documents.push({
        id,
        externalId: `doc-${ordinalDoc}`,
        title: `Document ${ordinalDoc}`,
        text: texts.join('\n\n'),
      });
      texts.forEach((content, ordinal) => {
        chunks.push({ documentId: id, ordinal, content });
      });
    }
    await insertDocuments(rs.db, target, documents, { indexed: true });
    await insertChunks(rs.db, target, chunks);
  }
}

/** Where `size`'s store is kept with `--keep-data-dir`, or undefined for a temp one. */
function keptDir(size: number): string | undefined {
  return KEEP_DATA_DIR === undefined ? undefined : join(resolve(KEEP_DATA_DIR), `chunks-${size}`);
}

/**
 * One size's store: with `--keep-data-dir` and a finished store there, that one as it is (no
 * build); otherwise a new one, loaded and indexed, with what the load cost (kept when asked).
 */
async function prepare(size: number): Promise<{ rs: RetrievalStore; reused: boolean }> {
  const dir = keptDir(size);
  if (dir !== undefined && (await pathExists(dir))) {
    const rs = await openKeptRetrievalStore(dir, size);
    console.log(
      `  reusing the store kept in ${dir} (no build; as the last run left it); ` +
        `${await bufferCacheMb(rs)} MB buffer cache`,
    );
    return { rs, reused: true };
  }
  const rs = await build(size, dir);
  if (dir !== undefined) {
    await saveKeptManifest(rs, size);
    console.log(`  kept in ${dir} for the next run with --keep-data-dir`);
  }
  return { rs, reused: false };
}

/** Builds one size's store (in `keepDir` when given), loaded and indexed, with what the load cost. */
async function build(size: number, keepDir: string | undefined): Promise<RetrievalStore> {
  const rs = await openRetrievalStore(keepDir === undefined ? {} : { keepDir });
  // The embeddings table only; the indexes are built after the load, as a bulk load would.
  await ensureOptionalSchema(rs.db, { trigram: false, vector: true }, null);
  const fullTextDefinition = await dropFullTextIndex(rs.db);
  const neighbourSize = Math.max(1_000, Math.round(size / 10));
  const load = await timed(async () => {
    await loadChunks(rs, rs.agent, size, 1);
    await loadChunks(rs, rs.neighbour, neighbourSize, 2);
  });
  const total = size + neighbourSize;
  console.log(
    `  loaded ${size} + ${neighbourSize} (neighbour) chunks in ${(load.ms / 1000).toFixed(1)} s ` +
      `(${formatRate(total, load.ms)} chunks/s, documents and chunks with to_tsvector, no full-text index yet)`,
  );
  const embed = await timed(async () => {
    for (const agentId of [rs.agent.agentId, rs.neighbour.agentId]) {
      await embedChunksJob.handle(
        { agentId },
        { db: rs.db, clock: systemClock, log: silentLog, jobId: 'bench', attempt: 1, embeddings: embedder },
      );
    }
  });
  console.log(
    `  embedded ${total} chunks (embedChunksJob.handle, hashed 256-d, no HNSW index yet) in ` +
      `${(embed.ms / 1000).toFixed(1)} s (${formatRate(total, embed.ms)} chunks/s)`,
  );
  for (const build of await buildIndexes(rs.db, fullTextDefinition, embedder.dimensions ?? 256)) {
    console.log(`  index ${build.name}: built in ${(build.ms / 1000).toFixed(1)} s`);
  }
  // Measured as the service runs such a store: opened again at its next start, which sizes
  // the buffer cache from the data now held (db/embedded-cache.ts).
  await rs.store.reopen();
  rs.db = rs.store.database.db;
  const size_ = await sql<{ size: string }>`
    select pg_size_pretty(pg_database_size(current_database())) as size`.execute(rs.db);
  console.log(
    `  database size: ${size_.rows[0]?.size ?? '?'}; reopened with a ${await bufferCacheMb(rs)} MB buffer cache`,
  );
  return rs;
}

/** One configuration's timings and hit counts, per query kind. */
type Samples = { all: number[]; byKind: Map<string, number[]>; hits: Map<string, number[]> };

function emptySamples(): Samples {
  return { all: [], byKind: new Map(), hits: new Map() };
}

async function search(
  rs: RetrievalStore,
  configuration: Configuration,
  query: BenchQuery,
): Promise<TSearchHit[]> {
  return searchChunks({
    db: rs.db,
    workspaceId: rs.agent.workspaceId,
    agentId: rs.agent.agentId,
    query: query.text,
    limit: LIMIT,
    features: configuration.features,
    embeddings: configuration.embeddings,
  });
}

/**
 * Runs the queries through every configuration, interleaved query by query (rotating which
 * goes first), until each configuration has run them all or spent its BUDGET_SECONDS: a
 * configuration past its budget drops out and the others go on, so a slow retriever cannot
 * make the run last hours. The table reports how many queries each one ran.
 */
async function measure(rs: RetrievalStore, queries: readonly BenchQuery[]): Promise<Map<string, Samples>> {
  for (const configuration of CONFIGURATIONS) {
    for (const query of queries.slice(0, WARMUP)) await search(rs, configuration, query);
  }
  const samples = new Map(CONFIGURATIONS.map((configuration) => [configuration.key, emptySamples()]));
  const spent = new Map(CONFIGURATIONS.map((configuration) => [configuration.key, 0]));
  for (const [index, query] of queries.entries()) {
    for (let k = 0; k < CONFIGURATIONS.length; k += 1) {
      const configuration = CONFIGURATIONS[(index + k) % CONFIGURATIONS.length];
      const into = configuration ? samples.get(configuration.key) : undefined;
      if (!configuration || !into) continue;
      const used = spent.get(configuration.key) ?? 0;
      if (used > BUDGET_SECONDS * 1000) continue;
      const { ms, result } = await timed(() => search(rs, configuration, query));
      spent.set(configuration.key, used + ms);
      into.all.push(ms);
      into.byKind.set(query.kind, [...(into.byKind.get(query.kind) ?? []), ms]);
      into.hits.set(query.kind, [...(into.hits.get(query.kind) ?? []), result.length]);
    }
  }
  return samples;
}

/** Prints the latency table (ratios to full-text only) and p95 by query kind; returns hybrid p95. */
function report(label: string, samples: Map<string, Samples>): { p95: number; problems: string[] } {
  const baseline = summarize(samples.get('b')?.all ?? []);
  const rows = CONFIGURATIONS.map((configuration) => {
    const s = summarize(samples.get(configuration.key)?.all ?? []);
    return [
      configuration.name,
      String(s.count),
      formatMs(s.p50),
      formatMs(s.p95),
      formatMs(s.p99),
      formatMs(s.mean),
      formatRatio(s.p50 / baseline.p50),
      formatRatio(s.p95 / baseline.p95),
      formatRatio(s.mean / baseline.mean),
    ];
  });
  console.log(`\n${label} (load average ${loadavg()[0]?.toFixed(1)})\n`);
  console.log(
    markdownTable(
      [
        'configuration',
        'queries',
        'p50 ms',
        'p95 ms',
        'p99 ms',
        'mean ms',
        'p50 vs (b)',
        'p95 vs (b)',
        'mean vs (b)',
      ],
      rows,
    ),
  );
  const kindRows = QUERY_KINDS.map((kind) => [
    kind,
    ...CONFIGURATIONS.flatMap((configuration) => {
      const entry = samples.get(configuration.key);
      const hits = entry?.hits.get(kind) ?? [];
      const meanHits = hits.reduce((sum, value) => sum + value, 0) / Math.max(1, hits.length);
      return [formatMs(summarize(entry?.byKind.get(kind) ?? []).p95), meanHits.toFixed(1)];
    }),
  ]);
  console.log('\np95 ms and mean hits by query kind:\n');
  console.log(
    markdownTable(
      [
        'query kind',
        ...CONFIGURATIONS.flatMap((configuration) => [
          `${configuration.key} p95`,
          `${configuration.key} hits`,
        ]),
      ],
      kindRows,
    ),
  );
  // Checks that void the numbers: matching queries must find something, no-match ones nothing.
  const problems: string[] = [];
  for (const configuration of CONFIGURATIONS) {
    const hits = samples.get(configuration.key)?.hits;
    if ((hits?.get('1-2 words') ?? []).some((count) => count === 0)) {
      problems.push(`${label} ${configuration.name}: a 1-2 word topic query found nothing`);
    }
    // The hashed embedder's nearest vectors can clear its similarity floor for any query, so
    // only the lexical configurations must find nothing for a nonsense query.
    if (configuration.embeddings === null && (hits?.get('no match') ?? []).some((count) => count > 0)) {
      problems.push(`${label} ${configuration.name}: a no-match query found something`);
    }
  }
  return { p95: summarize(samples.get('a')?.all ?? []).p95, problems };
}

/** EXPLAIN ANALYZE of each retriever's statement as `searchChunks` sent it for `query`. */
async function explainRetrievers(rs: RetrievalStore, query: BenchQuery): Promise<void> {
  const capture = capturingDb(rs.store);
  const full = CONFIGURATIONS.find((configuration) => configuration.key === 'a');
  if (!full) return;
  await searchChunks({
    db: capture.db,
    workspaceId: rs.agent.workspaceId,
    agentId: rs.agent.agentId,
    query: query.text,
    limit: LIMIT,
    features: full.features,
    embeddings: full.embeddings,
  });
  // Full-text and trigram lists come from one statement; the vector list from its own.
  const retrievers = [
    { name: 'full-text + trigram', marker: 'as fulltext' },
    { name: 'vector', marker: 'with nearest as' },
  ];
  console.log(`\nEXPLAIN ANALYZE, query ${JSON.stringify(query.text)} (${query.kind}):`);
  for (const retriever of retrievers) {
    const index = capture.captured.findIndex((statement) => statement.sql.includes(retriever.marker));
    const statement = capture.captured[index];
    if (!statement) {
      console.log(`\n-- ${retriever.name}: not run`);
      continue;
    }
    console.log(`\n-- ${retriever.name}\n${await explainAnalyze(rs.db, statement)}`);
  }
}

/** PGlite's own buffer cache: what a store gets without the service's sizing. */
const DEFAULT_CACHE_MB = 128;

/** The buffer cache the store runs with, in MB (`shared_buffers` is counted in 8 kB pages). */
async function bufferCacheMb(rs: RetrievalStore): Promise<number> {
  const result = await sql<{ mb: number }>`
    select (setting::bigint * 8 / 1024)::int as mb from pg_settings where name = 'shared_buffers'`.execute(
    rs.db,
  );
  return result.rows[0]?.mb ?? 0;
}

/**
 * The same queries after reopening the store with PGlite's default cache instead of the sized
 * one: the searches then read part of their pages through the WebAssembly file layer. Printed
 * beside the sized run; not part of the target.
 */
async function compareDefaultCache(rs: RetrievalStore, queries: readonly BenchQuery[]): Promise<void> {
  await rs.store.reopen({ cacheMb: DEFAULT_CACHE_MB });
  rs.db = rs.store.database.db;
  const samples = await measure(rs, queries);
  report(
    `${TARGET_SIZE} chunks, after ANALYZE, reopened with PGlite's default ${DEFAULT_CACHE_MB} MB cache`,
    samples,
  );
}

/**
 * Re-indexes CHURN_PERCENT of the documents, measures, runs the maintenance job's pass (dead
 * rows and sizes before and after, each table's hold time), measures again, then times plain
 * ANALYZE table by table. Prints hybrid p95 before and after side by side.
 */
async function churnAndMaintain(rs: RetrievalStore, queries: readonly BenchQuery[]): Promise<string[]> {
  const churn = await timed(() => churnDocuments(rs, rs.agent, CHURN_PERCENT / 100, embedder, 3));
  console.log(
    `\n  churn: re-indexed ${churn.result.documents} documents (${churn.result.chunks} chunks, ` +
      `${CHURN_PERCENT} %) and re-embedded in ${(churn.ms / 1000).toFixed(1)} s\n`,
  );
  console.log(await tableStats(rs.db));
  const before = report('after churn, before the maintenance job', await measure(rs, queries));
  await runMaintenance(rs.db);
  console.log(`\n${await tableStats(rs.db)}`);
  const after = report('after the maintenance job', await measure(rs, queries));
  await timeAnalyze(rs.db);
  console.log(
    `\nHybrid p95 after churn: before the maintenance job ${formatMs(before.p95)} ms, ` +
      `after ${formatMs(after.p95)} ms (${formatRatio(after.p95 / before.p95)})`,
  );
  return [...before.problems, ...after.problems];
}

async function main(): Promise<number> {
  const cpuList = cpus();
  console.log(
    `Search: node ${process.version}, ${cpuList.length} x ${cpuList[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `load average ${loadavg()[0]?.toFixed(1)}; ` +
      `sizes ${SIZES.join(', ')} chunks; up to ${QUERIES} queries or ${BUDGET_SECONDS} s per configuration and phase ` +
      `(${WARMUP} discarded first), limit ${LIMIT}`,
  );
  const queries = benchQueries(7, QUERIES);
  const problems: string[] = [];
  const hybridP95 = new Map<number, { asInstalled: number; analyzed: number }>();
  const largest = Math.max(...SIZES);
  for (const size of SIZES) {
    console.log(`\n${size} chunks:`);
    const { rs, reused } = await prepare(size);
    try {
      // A reused store has whatever statistics and dead rows the last run left.
      const firstPhase = reused ? 'kept store as the last run left it' : 'as installed (no ANALYZE)';
      const asInstalled = report(`${size} chunks, ${firstPhase}`, await measure(rs, queries));
      if (CHURN_PERCENT > 0 && size === largest) {
        problems.push(...asInstalled.problems, ...(await churnAndMaintain(rs, queries)));
        continue;
      }
      const analyze = await timed(() => sql`analyze`.execute(rs.db));
      console.log(`\n  ANALYZE took ${(analyze.ms / 1000).toFixed(1)} s`);
      const analyzedSamples = await measure(rs, queries);
      const analyzed = report(`${size} chunks, after ANALYZE`, analyzedSamples);
      problems.push(...asInstalled.problems, ...analyzed.problems);
      hybridP95.set(size, { asInstalled: asInstalled.p95, analyzed: analyzed.p95 });
      if (size === largest) {
        // The query at the hybrid p95: what the tail is made of.
        const times = analyzedSamples.get('a')?.all ?? [];
        const order = times.map((ms, index) => ({ ms, index })).sort((x, y) => x.ms - y.ms);
        const at = order[Math.min(order.length - 1, Math.ceil(0.95 * order.length) - 1)];
        const query = queries[at?.index ?? 0];
        if (query) await explainRetrievers(rs, query);
        if ((await bufferCacheMb(rs)) > DEFAULT_CACHE_MB) await compareDefaultCache(rs, queries);
      }
    } finally {
      await rs.store.close();
    }
  }
  const atTarget = hybridP95.get(TARGET_SIZE);
  if (atTarget) {
    const verdict = (ms: number) =>
      `${ms <= TARGET_P95_MS ? 'met' : 'not met'} (measured ${formatMs(ms)} ms)`;
    console.log(
      `\nTarget: hybrid p95 ≤ ${TARGET_P95_MS} ms at ${TARGET_SIZE} chunks on the embedded store: ` +
        `as installed ${verdict(atTarget.asInstalled)}; after ANALYZE ${verdict(atTarget.analyzed)}`,
    );
  } else {
    console.log(
      `\nTarget (hybrid p95 ≤ ${TARGET_P95_MS} ms at ${TARGET_SIZE} chunks): not measured in this run`,
    );
  }
  console.log(
    `load average at the end: ${loadavg()[0]?.toFixed(1)} (other work on the machine skews absolute numbers)`,
  );
  for (const problem of problems) console.error(`${problem}; its numbers are void`);
  return problems.length > 0 ? 1 : 0;
}

process.exitCode = await main();
