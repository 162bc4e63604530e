/**
 * What the retrieval benchmarks share: an embedded store with two agents (the measured one and
 * a neighbour whose chunks the tenant filter must skip), bulk loading of documents and chunks
 * as the index job stores them, the optional schema (embeddings table, trigram and HNSW
 * indexes), and EXPLAIN ANALYZE of the exact statements a call ran.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CompiledQuery, Kysely, PostgresDialect, sql } from 'kysely';
import type { DatabaseFeatures } from '../../../apps/server/src/db/database.js';
import { ensureOptionalSchema } from '../../../apps/server/src/db/optional-schema.js';
import type { DB } from '../../../apps/server/src/db/schema.js';
import { createLogger } from '../../../apps/server/src/logger.js';
import { textSearchConfig } from '../../../apps/server/src/retrieval/text-search-config.js';
import { recordVocabulary } from '../../../apps/server/src/retrieval/vocabulary.js';
import { sha256Hex } from '../../../apps/server/src/security/hashing.js';
import { newId } from '../../../apps/server/src/security/ids.js';
import { createAgent } from '../../../apps/server/src/services/agents/agents.js';
import { openEmbeddedStore, openKeptStore, type StoreHandle, startBenchQueue } from './embedded-store.js';

/** The language of every agent and document here: full-text uses `english` and `simple`. */
export const LANGUAGE = 'en';

/** Where a document goes: workspace, agent and its source. */
export type Target = { workspaceId: string; agentId: string; sourceId: string };

/** A store with the measured agent and a neighbour agent, each with one source. */
export type RetrievalStore = { store: StoreHandle; db: Kysely<DB>; agent: Target; neighbour: Target };

/** A silent job logger for calling job handlers directly. */
export const silentLog = createLogger('silent');

/**
 * Opens a fresh embedded store with two agents of the bootstrapped workspace, in a temp
 * directory or in `keepDir` (kept after close; see `saveKeptManifest`). The optional schema is
 * left to the caller (a bulk load builds its indexes after loading).
 */
export async function openRetrievalStore(options: { keepDir?: string } = {}): Promise<RetrievalStore> {
  const store = await openEmbeddedStore({}, options);
  // Agents are created as the service creates them, with the queue their knowledge-base sync
  // sends to (nothing to send here: the workspace has no articles); stopped once they exist.
  const queue = await startBenchQueue(store);
  const target = async (name: string): Promise<Target> => {
    const agent = await createAgent({ ...store.scope, queue }, { name, language_default: LANGUAGE });
    const sourceId = newId();
    await store.database.db
      .insertInto('sources')
      .values({
        id: sourceId,
        workspace_id: store.scope.workspaceId,
        agent_id: agent.id,
        type: 'text',
        name: `${name} texts`,
        status: 'indexed',
      })
      .execute();
    return { workspaceId: store.scope.workspaceId, agentId: agent.id, sourceId };
  };
  const agent = await target('Measured agent');
  const neighbour = await target('Neighbour agent');
  await queue.stop(1_000);
  return { store, db: store.database.db, agent, neighbour };
}

/** A document to insert: its id (chosen by the caller), external id, title and text. */
export type NewDocument = { id: string; externalId: string; title: string; text: string };

/** Inserts documents in one statement, `pending` (the index job's input) unless `indexed`. */
export async function insertDocuments(
  db: Kysely<DB>,
  target: Target,
  documents: readonly NewDocument[],
  options: { indexed: boolean },
): Promise<void> {
  if (documents.length === 0) return;
  const hashes = documents.map((doc) => sha256Hex(doc.text));
  await sql`
    insert into documents (id, workspace_id, agent_id, source_id, external_id, kind, title, language,
      content_text, content_hash, index_status, indexed_hash, indexed_at)
    select d.id, ${target.workspaceId}, ${target.agentId}, ${target.sourceId}, d.external_id, 'text', d.title,
      ${LANGUAGE}, d.content_text, d.content_hash,
      ${options.indexed ? 'indexed' : 'pending'}, ${options.indexed ? sql`d.content_hash` : sql`null`},
      ${options.indexed ? sql`now()` : sql`null`}
    from unnest(${documents.map((doc) => doc.id)}::text[], ${documents.map((doc) => doc.externalId)}::text[],
      ${documents.map((doc) => doc.title)}::text[], ${documents.map((doc) => doc.text)}::text[],
      ${hashes}::text[]) as d(id, external_id, title, content_text, content_hash)`.execute(db);
}

/** A chunk to insert: its document, position and text. */
export type NewChunk = { documentId: string; ordinal: number; content: string };

/**
 * Inserts chunks in one statement as the index job stores them: a new id, the text's SHA-256,
 * and `to_tsvector` of the agent language's configuration computed by the database.
 */
export async function insertChunks(
  db: Kysely<DB>,
  target: Target,
  chunks: readonly NewChunk[],
): Promise<void> {
  if (chunks.length === 0) return;
  const config = await textSearchConfig(db, LANGUAGE);
  await sql`
    insert into chunks (id, workspace_id, agent_id, document_id, ordinal, content, content_hash, tsv)
    select c.id, ${target.workspaceId}, ${target.agentId}, c.document_id, c.ordinal, c.content, c.content_hash,
      to_tsvector(${config}::regconfig, c.content)
    from unnest(${chunks.map(() => newId())}::text[], ${chunks.map((chunk) => chunk.documentId)}::text[],
      ${chunks.map((chunk) => chunk.ordinal)}::int[], ${chunks.map((chunk) => chunk.content)}::text[],
      ${chunks.map((chunk) => sha256Hex(chunk.content))}::text[]) as c(id, document_id, ordinal, content, content_hash)`.execute(
    db,
  );
  // The agent's vocabulary, as the index job records it (typo tolerance reads it).
  await recordVocabulary(db, target.agentId, chunks.map((chunk) => chunk.content).join('\n'));
}

/** Milliseconds `work` took, and its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

/** Which index to build after a bulk load, and how long it took. */
export type IndexBuild = { name: string; ms: number };

/** The migration's full-text GIN index, dropped before a bulk load and rebuilt from its own definition. */
const TSV_INDEX = 'chunks_tsv_idx';

/** Drops the full-text GIN index for a bulk load; returns its definition for `buildIndexes`. */
export async function dropFullTextIndex(db: Kysely<DB>): Promise<string> {
  const row = await sql<{
    indexdef: string;
  }>`select indexdef from pg_indexes where indexname = ${TSV_INDEX}`.execute(db);
  const definition = row.rows[0]?.indexdef;
  if (!definition) throw new Error(`${TSV_INDEX} not found`);
  await sql`drop index ${sql.id(TSV_INDEX)}`.execute(db);
  return definition;
}

/**
 * Builds, one at a time and timed, the full-text GIN index (from its migration definition),
 * then the trigram GIN index and the HNSW index for `dims` through `ensureOptionalSchema`,
 * the code the service runs at start.
 */
export async function buildIndexes(
  db: Kysely<DB>,
  fullTextDefinition: string,
  dims: number,
): Promise<IndexBuild[]> {
  const builds: IndexBuild[] = [];
  builds.push({
    name: `full-text GIN (${TSV_INDEX})`,
    ...(await timed(() => sql.raw(fullTextDefinition).execute(db))),
  });
  const trigramOnly: DatabaseFeatures = { trigram: true, vector: false };
  builds.push({
    name: 'trigram GIN over the vocabulary (agent_words_trgm_idx)',
    ...(await timed(() => ensureOptionalSchema(db, trigramOnly, null))),
  });
  const vectorOnly: DatabaseFeatures = { trigram: false, vector: true };
  builds.push({
    name: `HNSW cosine (embeddings_hnsw_${dims}_idx)`,
    ...(await timed(() => ensureOptionalSchema(db, vectorOnly, dims))),
  });
  return builds.map(({ name, ms }) => ({ name, ms }));
}

/** One statement a Kysely call sent, with its parameters. */
export type CapturedQuery = { sql: string; parameters: readonly unknown[] };

/**
 * A second Kysely over the store's one pool that records every statement it sends, so a
 * benchmark can EXPLAIN exactly what the code under test ran. Never destroy it: that would
 * end the shared pool (the store's `close()` does).
 */
export function capturingDb(store: StoreHandle): { db: Kysely<DB>; captured: CapturedQuery[] } {
  const captured: CapturedQuery[] = [];
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: store.database.pool }),
    log(event) {
      if (event.level === 'query')
        captured.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  return { db, captured };
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of `query`, on a connection with the service's session settings
 * (db/database.ts applies them to every connection).
 */
export async function explainAnalyze(db: Kysely<DB>, query: CapturedQuery): Promise<string> {
  const result = await db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`explain (analyze, buffers) ${query.sql}`, [...query.parameters]),
  );
  return result.rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** The file in a kept store's directory that says what it holds; written once it is complete. */
const MANIFEST = 'bench-retrieval.json';

/** What a kept store holds: the chunk count it was built for and its two agents. */
type KeptManifest = { chunks: number; agent: Target; neighbour: Target };

/** Whether `dir` exists (a kept store to reuse, or a directory to refuse). */
export async function pathExists(dir: string): Promise<boolean> {
  return stat(dir).then(
    () => true,
    () => false,
  );
}

/** Marks a kept store complete: written after its load, embedding and indexes are done. */
export async function saveKeptManifest(rs: RetrievalStore, chunks: number): Promise<void> {
  const manifest: KeptManifest = { chunks, agent: rs.agent, neighbour: rs.neighbour };
  await writeFile(join(rs.store.dataDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Opens a store an earlier run kept in `dir` for `chunks` chunks, as it is (whatever that run
 * did to it after building, churn included, is still there). Refuses a directory without a
 * manifest (a build that did not finish) or one built for another size.
 */
export async function openKeptRetrievalStore(dir: string, chunks: number): Promise<RetrievalStore> {
  const raw = await readFile(join(dir, MANIFEST), 'utf8').catch(() => null);
  if (raw === null) {
    throw new Error(`${dir} holds no finished bench store (no ${MANIFEST}); remove it to build one there`);
  }
  const parsed: unknown = JSON.parse(raw);
  const manifest = isKeptManifest(parsed) ? parsed : null;
  if (!manifest) throw new Error(`${join(dir, MANIFEST)} is not a bench store manifest`);
  if (manifest.chunks !== chunks) {
    throw new Error(`${dir} was built for ${manifest.chunks} chunks, not ${chunks}`);
  }
  const store = await openKeptStore(dir);
  return { store, db: store.database.db, agent: manifest.agent, neighbour: manifest.neighbour };
}

function isTarget(value: unknown): value is Target {
  if (typeof value !== 'object' || value === null) return false;
  const record: Record<string, unknown> = { ...value };
  return ['workspaceId', 'agentId', 'sourceId'].every((key) => typeof record[key] === 'string');
}

function isKeptManifest(value: unknown): value is KeptManifest {
  if (typeof value !== 'object' || value === null) return false;
  const record: Record<string, unknown> = { ...value };
  return typeof record.chunks === 'number' && isTarget(record.agent) && isTarget(record.neighbour);
}
