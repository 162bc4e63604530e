/**
 * Retrieval quality on a real manual, with an ablation table, in one run: the SQLite
 * documentation (Debian `sqlite3-doc`, 766 HTML pages) served on loopback with a sitemap,
 * indexed ONCE through the real pipeline (the service as `npm start` runs it: sitemap source,
 * crawl, index and embedding jobs), then the 80 golden questions of `bench/golden/sqlite/`:
 * first through `POST /api/v1/admin/agents/{id}/search` (the service's own search, timed), then
 * through `searchChunks` on the same store once per configuration, each ranking component
 * switched off in turn (the internal `components` option; no request can set it).
 *
 * Prints recall@1, recall@5 and MRR@10 per kind for the full search, a Markdown table of
 * configuration × kind recall@5 with overall r@1/r@5/MRR@10, search p50/p95, pages indexed per
 * second, the misses, the date and the commit. Progress goes to stderr.
 *
 * Run: `npm run bench:quality` (options: `--corpus DIR`, `--golden FILE`, `--database-url URL`,
 * `--crawl-delay-ms N` (default 0), `--timeout-min N` (default 12), `--index-only` to stop after
 * indexing and print its speed, `--keep-dir DIR` (index into
 * the embedded store at DIR and keep it), `--reuse-dir DIR` (query a kept store again: no
 * indexing, for ranking-only changes)). Exits 2 without the corpus.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { searchChunks } from '../../apps/server/src/retrieval/search.js';
import { FULL_SEARCH, type SearchComponents } from '../../apps/server/src/retrieval/search-components.js';
import type { TSearchHit } from '../../packages/contract/src/index.js';
import { startCorpusSite } from './support/corpus-site.js';
import {
  type GoldenQuestion,
  rankOf,
  rankPages,
  readGolden,
  type Scores,
  scoreRanks,
} from './support/golden.js';
import { hasKey } from './support/http.js';
import { argument, formatMs, markdownTable, positiveIntegers, summarize } from './support/latency.js';
import {
  type IndexOutcome,
  idOf,
  indexSitemap,
  type QualityService,
  saveState,
  startQualityService,
} from './support/quality-service.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CORPUS = argument('corpus') ?? process.env.SQLITE_DOCS_DIR ?? '/usr/share/doc/sqlite3';
const GOLDEN = argument('golden') ?? join(HERE, '../golden/sqlite/sqlite-docs.jsonl');
const DATABASE_URL = argument('database-url') ?? null;
const CRAWL_DELAY_MS = Number(argument('crawl-delay-ms') ?? '0');
const INDEX_ONLY = process.argv.includes('--index-only');
const KEEP_DIR = argument('keep-dir') ?? null;
const REUSE_DIR = argument('reuse-dir') ?? null;
/** `--rows a,b`: only the ablation rows whose name contains one of these (the full row always runs). */
const ROWS =
  argument('rows')
    ?.split(',')
    .filter((row) => row !== '') ?? null;
const TIMEOUT_MIN = positiveIntegers(argument('timeout-min'), [12], '--timeout-min')[0] ?? 12;
/** Hits asked per question, as the black-box runner asks. */
const LIMIT = 10;

/** The configurations of the ablation table: the full search, then one component off (or alone) each. */
const BM25 = FULL_SEARCH.bm25;
const FEEDBACK = FULL_SEARCH.feedback;
/** The tiers ranking that BM25 replaced as the default (issue 17's second step). */
const TIERS: Partial<SearchComponents> = { ranking: 'tiers', trigram: true, lexicalVectors: true };

const CONFIGS: { name: string; components: Partial<SearchComponents> }[] = [
  { name: 'full (service default)', components: {} },
  { name: 'tiers (the default before BM25)', components: { ...TIERS } },
  {
    name: 'before issue 17 (tiers, all words, equal RRF)',
    components: {
      ranking: 'tiers',
      trigram: true,
      lexicalVectors: true,
      allWords: true,
      weights: { trigram: 1, vector: 1 },
      pages: 0,
    },
  },
  { name: 'BM25, off: feedback (no re-ranking)', components: { feedback: { ...FEEDBACK, weight: 0 } } },
  {
    name: 'BM25, feedback not folded (its words, then the re-ranking: two statements more)',
    components: { feedback: { ...FEEDBACK, folded: false } },
  },
  { name: 'BM25, feedback weight 0.5', components: { feedback: { ...FEEDBACK, weight: 0.5 } } },
  { name: 'BM25, feedback from 10 chunks', components: { feedback: { ...FEEDBACK, chunks: 10 } } },
  { name: 'BM25, feedback of 20 words', components: { feedback: { ...FEEDBACK, terms: 20 } } },
  { name: 'on: trigram correction of words under 4 letters', components: { shortFixes: true } },
  { name: 'on: single-letter words', components: { letters: true } },
  {
    name: 'as at the fourth step (feedback not folded, short corrections, single letters)',
    components: { shortFixes: true, letters: true, feedback: { ...FEEDBACK, folded: false } },
  },
  { name: 'BM25, off: IDF (every word weighs 1)', components: { bm25: { ...BM25, idf: false } } },
  { name: 'BM25, off: title/URL field', components: { bm25: { ...BM25, title: 0 } } },
  { name: 'BM25, pages 0.5', components: { bm25: { ...BM25, pages: 0.5 } } },
  { name: 'BM25, off: length normalization (b 0)', components: { bm25: { ...BM25, b: 0 } } },
  { name: 'BM25, off: typo correction in the query', components: { correct: false } },
  { name: 'BM25, typo correction by trigrams only (no typing slips)', components: { slips: false } },
  {
    name: 'BM25 as at the third step (no slips, no feedback)',
    components: {
      slips: false,
      shortFixes: true,
      letters: true,
      feedback: { ...FEEDBACK, weight: 0 },
      lexicalVectors: true,
    },
  },
  {
    name: 'BM25, typo: trigram list instead of the correction',
    components: { correct: false, trigram: true },
  },
  { name: 'on: trigram list', components: { trigram: true } },
  { name: 'on: the offline hashed vectors', components: { lexicalVectors: true } },
  { name: 'off: fusion (lists concatenated)', components: { fusion: 'concatenate' } },
  { name: 'all words always', components: { allWords: true } },
  { name: 'configs: language only', components: { configs: 'language' } },
  { name: 'configs: simple only', components: { configs: 'simple' } },
  { name: 'full-text only', components: { vector: false } },
  { name: 'vectors only', components: { allWords: false, anyWord: false, lexicalVectors: true } },
  {
    name: 'hashed vectors at weight 0.1',
    components: { lexicalVectors: true, weights: { ...FULL_SEARCH.weights, vector: 0.1 } },
  },
  {
    name: 'hashed vectors at weight 0.5',
    components: { lexicalVectors: true, weights: { ...FULL_SEARCH.weights, vector: 0.5 } },
  },
  { name: 'BM25, title 0.5', components: { bm25: { ...BM25, title: 0.5 } } },
  { name: 'BM25, title 2', components: { bm25: { ...BM25, title: 2 } } },
  { name: 'BM25, pages 0.3', components: { bm25: { ...BM25, pages: 0.3 } } },
  {
    name: 'BM25, pages 0.3, title 0.5',
    components: { bm25: { ...BM25, pages: 0.3, title: 0.5 } },
  },
  { name: 'BM25, budget 3000', components: { bm25: { ...BM25, budget: 3000 } } },
  { name: 'BM25, budget 300', components: { bm25: { ...BM25, budget: 300 } } },
  { name: 'BM25, k1 0.9, b 0.4', components: { bm25: { ...BM25, k1: 0.9, b: 0.4 } } },
  { name: 'BM25, k1 2', components: { bm25: { ...BM25, k1: 2 } } },
];

const progress = (line: string) => process.stderr.write(`${line}\n`);
const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** One pass of the question set: each question's rank and latency. */
type Pass = { name: string; ranks: (number | null)[]; ms: number[]; top: string[][] };

async function runPass(
  name: string,
  questions: readonly GoldenQuestion[],
  root: string,
  search: (query: string) => Promise<TSearchHit[]>,
): Promise<Pass> {
  await search('warm up the caches'); // the first statement of a pass plans cold
  const pass: Pass = { name, ranks: [], ms: [], top: [] };
  for (const q of questions) {
    const started = performance.now();
    const hits = await search(q.question);
    pass.ms.push(performance.now() - started);
    const pages = rankPages(
      hits.map((hit) => hit.url),
      root,
    );
    pass.ranks.push(rankOf(q, pages));
    pass.top.push(pages.slice(0, 3));
  }
  return pass;
}

function routeSearch(qs: QualityService, agentId: string) {
  return async (query: string): Promise<TSearchHit[]> => {
    const data = await qs.api('POST', `/agents/${agentId}/search`, { query, limit: LIMIT });
    if (!hasKey(data, 'hits') || !Array.isArray(data.hits))
      throw new Error(`no hits in ${JSON.stringify(data)}`);
    return data.hits.filter((hit): hit is TSearchHit => hasKey(hit, 'url'));
  };
}

function directSearch(qs: QualityService, agentId: string, components: Partial<SearchComponents>) {
  return (query: string) =>
    searchChunks({
      db: qs.service.database.db,
      workspaceId: qs.workspaceId,
      agentId,
      query,
      limit: LIMIT,
      features: qs.service.database.features,
      embeddings: qs.embeddings,
      components,
    });
}

function commitLine(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: HERE, encoding: 'utf8' }).trim();
    const dirty =
      git('status', '--porcelain', '--untracked-files=no') === '' ? '' : ' (with uncommitted changes)';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty}`;
  } catch {
    return 'unknown';
  }
}

function kindTable(scores: Map<string, Scores>): string {
  return markdownTable(
    ['kind', 'n', 'recall@1', 'recall@5', 'MRR@10'],
    [...scores].map(([kind, s]) => [
      kind,
      String(s.n),
      fixed(s.recall1),
      fixed(s.recall5),
      fixed(s.mrr10, 3),
    ]),
  );
}

function ablationTable(passes: readonly Pass[], questions: readonly GoldenQuestion[]): string {
  const kinds = [...new Set(questions.map((q) => q.kind))];
  const rows = passes.map((pass) => {
    const scores = scoreRanks(questions, pass.ranks);
    const overall = scores.get('overall');
    const latency = summarize(pass.ms);
    return [
      pass.name,
      ...kinds.map((kind) => fixed(scores.get(kind)?.recall5 ?? 0)),
      fixed(overall?.recall1 ?? 0),
      fixed(overall?.recall5 ?? 0),
      fixed(overall?.mrr10 ?? 0, 3),
      formatMs(latency.p50),
      formatMs(latency.p95),
    ];
  });
  return markdownTable(
    ['configuration', ...kinds.map((kind) => `${kind} r@5`), 'r@1', 'r@5', 'MRR@10', 'p50 ms', 'p95 ms'],
    rows,
  );
}

/** Refuses anything but the known `--name value` options (npm may eat a flag and leave its value). */
function checkArguments(argv: readonly string[]): void {
  const known = [
    'corpus',
    'golden',
    'database-url',
    'crawl-delay-ms',
    'timeout-min',
    'keep-dir',
    'reuse-dir',
    'rows',
  ];
  const flags = ['index-only'];
  for (let i = 0; i < argv.length; i += 1) {
    const name = (argv[i] ?? '').replace(/^--/, '').split('=')[0] ?? '';
    if (flags.includes(name)) continue;
    if (!argv[i]?.startsWith('--') || !known.includes(name))
      throw new Error(
        `unexpected argument ${JSON.stringify(argv[i])}; options: ${[...known, ...flags].map((k) => `--${k}`).join(' ')}`,
      );
    if (!argv[i]?.includes('=')) i += 1;
  }
}

/**
 * The indexed agent: the one a `--reuse-dir` store holds, or a new one indexed from the
 * corpus site's sitemap now (saved into a `--keep-dir` store for later runs).
 */
async function indexedAgent(
  qs: QualityService,
  baseUrl: string,
): Promise<{ agentId: string; outcome: IndexOutcome; root: string }> {
  const kept = qs.state;
  if (REUSE_DIR) {
    if (!kept.agentId || !kept.outcome || !kept.corpusBaseUrl)
      throw new Error(`${REUSE_DIR} was not indexed to the end by a --keep-dir run`);
    progress(`reusing the store in ${REUSE_DIR}: agent ${kept.agentId}, indexed by an earlier run`);
    return { agentId: kept.agentId, outcome: kept.outcome, root: kept.corpusBaseUrl };
  }
  const agentId = idOf(
    await qs.api('POST', '/agents', { name: 'quality bench', is_published: true, language_default: 'en' }),
  );
  const outcome = await indexSitemap(qs, agentId, `${baseUrl}/sitemap.xml`, TIMEOUT_MIN * 60_000);
  progress(
    `indexed ${outcome.documents} documents (${outcome.chunks} chunks) in ${outcome.indexedSeconds.toFixed(0)} s, ` +
      `embedded by ${outcome.embeddedSeconds.toFixed(0)} s; source ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`,
  );
  if (outcome.documents === 0) throw new Error('no document was indexed');
  if (KEEP_DIR) await saveState(KEEP_DIR, { ...kept, agentId, corpusBaseUrl: baseUrl, outcome });
  return { agentId, outcome, root: baseUrl };
}

async function main(): Promise<number> {
  checkArguments(process.argv.slice(2));
  if (!existsSync(join(CORPUS, 'index.html'))) {
    console.error(`corpus not found at ${CORPUS}: apt-get install -y sqlite3-doc (or --corpus DIR)`);
    return 2;
  }
  if (!Number.isInteger(CRAWL_DELAY_MS) || CRAWL_DELAY_MS < 0)
    throw new Error('--crawl-delay-ms must be ≥ 0');
  const questions = readGolden(GOLDEN);
  const site = await startCorpusSite(CORPUS);
  const cpu = cpus();
  const store = DATABASE_URL ? 'PostgreSQL (a fresh database)' : 'the embedded store (PGlite)';
  progress(
    `quality bench: ${site.pages.length} pages from ${CORPUS} at ${site.baseUrl}, ${questions.length} questions`,
  );
  let qs: QualityService | null = null;
  try {
    qs = await startQualityService({
      corpusPort: site.port,
      databaseUrl: DATABASE_URL,
      crawlDelayMs: CRAWL_DELAY_MS,
      keepDir: KEEP_DIR,
      reuseDir: REUSE_DIR,
      // The ablation's hashed-vector rows need the offline vectors stored; `--index-only` measures
      // the service's default (no vectors). EMBEDDINGS_PROVIDER in the environment wins.
      embeddingsProvider: process.env.EMBEDDINGS_PROVIDER || (INDEX_ONLY ? undefined : 'offline'),
    });
    const started = qs;
    // Ctrl-C: stop the service, remove its DATA_DIR or drop its database, then exit.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        progress(`${signal}: stopping the service and removing its store`);
        void Promise.allSettled([started.stop(), site.close()]).then(() => process.exit(130));
      });
    }
    const features = qs.service.database.features;
    progress(`service at ${qs.baseUrl} on ${store} (trigram ${features.trigram}, vector ${features.vector})`);
    // CPU time of this process (the service, its store and extraction threads, the corpus site):
    // unlike the wall clock, hardly moved by other work on a shared machine.
    const cpuBefore = process.cpuUsage();
    const { agentId, outcome, root } = await indexedAgent(qs, site.baseUrl);
    if (INDEX_ONLY) {
      const cpuUsed = process.cpuUsage(cpuBefore);
      const cpuSeconds = (cpuUsed.user + cpuUsed.system) / 1e6;
      console.log(
        `Indexing (${new Date().toISOString().slice(0, 16)}Z, commit ${commitLine()}; ${store}; load average ${loadavg()[0]?.toFixed(1)}): ` +
          `${outcome.documents} documents, ${outcome.chunks} chunks; fetched and indexed in ${outcome.indexedSeconds.toFixed(0)} s ` +
          `(${(outcome.documents / outcome.indexedSeconds).toFixed(1)} pages/s), embedded by ${outcome.embeddedSeconds.toFixed(0)} s ` +
          `(${(outcome.documents / outcome.embeddedSeconds).toFixed(1)} pages/s); CPU ${cpuSeconds.toFixed(0)} s ` +
          `(${((cpuSeconds * 1000) / outcome.documents).toFixed(0)} ms per page)`,
      );
      return 0;
    }
    progress('questions through the admin search route');
    const route = await runPass('admin search route', questions, root, routeSearch(qs, agentId));
    const passes: Pass[] = [];
    const configs = CONFIGS.filter(
      (config, i) => i === 0 || !ROWS || ROWS.some((row) => config.name.includes(row)),
    );
    for (const config of configs) {
      progress(`questions with ${config.name}`);
      passes.push(await runPass(config.name, questions, root, directSearch(qs, agentId, config.components)));
    }
    const full = passes[0];
    const differ = full ? route.ranks.filter((rank, i) => rank !== full.ranks[i]).length : 0;

    const routeScores = scoreRanks(questions, route.ranks);
    const latency = summarize(route.ms);
    console.log(
      `# Quality bench: SQLite manual, ${new Date().toISOString().slice(0, 10)}, commit ${commitLine()}`,
    );
    console.log(
      `node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'CPU'}, load average ${loadavg()[0]?.toFixed(1)}; ${store}, ` +
        `embeddings ${qs.embeddings?.key ?? 'none (no pgvector)'}, crawl delay ${CRAWL_DELAY_MS} ms\n`,
    );
    console.log(
      `Indexing: ${outcome.documents} documents from ${site.pages.length} pages, ${outcome.chunks} chunks; ` +
        `fetched and indexed in ${outcome.indexedSeconds.toFixed(0)} s ` +
        `(${(outcome.documents / outcome.indexedSeconds).toFixed(1)} pages/s), ` +
        `embedded by ${outcome.embeddedSeconds.toFixed(0)} s (${(outcome.documents / outcome.embeddedSeconds).toFixed(1)} pages/s)`,
    );
    console.log(
      `Search through the admin route: p50 ${formatMs(latency.p50)} ms, p95 ${formatMs(latency.p95)} ms over ${latency.count} questions (limit ${LIMIT})\n`,
    );
    console.log('Full search (admin route), per kind:\n');
    console.log(`${kindTable(routeScores)}\n`);
    console.log(
      'Ablation (searchChunks on the same index, one pass per configuration; latency without HTTP):\n',
    );
    console.log(`${ablationTable(passes, questions)}\n`);
    if (!features.trigram) console.log('(no pg_trgm: the trigram rows equal the full search)');
    if (!features.vector)
      console.log('(no pgvector: the vector rows equal the full search, "vectors only" finds nothing)');
    if (differ > 0)
      console.log(`WARNING: the route and the direct full search ranked ${differ} questions differently`);
    console.log('Misses of the full search (expected page not in the top 5):');
    questions.forEach((q, i) => {
      const rank = route.ranks[i] ?? null;
      if (rank !== null && rank <= 5) return;
      console.log(
        `- ${q.id} [${q.kind}] ${JSON.stringify(q.question)}: expected ${q.ok[0]}; ` +
          `${rank === null ? 'not in the top 10' : `rank ${rank}`}; top 3: ${route.top[i]?.join(', ') || '(none)'}`,
      );
    });
    console.log(`\nrecall@5 = ${fixed(routeScores.get('overall')?.recall5 ?? 0)}`);
    return differ > 0 ? 1 : 0;
  } finally {
    await qs?.stop();
    await site.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
