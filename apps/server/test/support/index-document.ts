import { after, before } from 'node:test';
import { sql } from 'kysely';
import { indexDocumentJob } from '../../src/jobs/index-document.js';
import { createLogger } from '../../src/logger.js';
import { newId } from '../../src/security/ids.js';
import { createAgent } from '../../src/services/agents/agents.js';
import { createTestApp, seedTenant, type TestApp } from './test-app.js';

/** A chunk as the index-document tests read it (its tsvector as text). */
export type ChunkView = { id: string; ordinal: number; content: string; tsv: string };

/** What the index-document tests share: an app, a workspace with one agent and one site source. */
export type IndexDocumentApp = {
  readonly t: TestApp;
  readonly workspaceId: string;
  /** Inserts a pending document as a sync would leave it, and returns its id. */
  insertDocument(input: { language: string | null; text: string; hash: string }): Promise<string>;
  /** Runs the index job's handler in-process, as a worker would. */
  runIndex(documentId: string): Promise<void>;
  chunksOf(documentId: string): Promise<ChunkView[]>;
  /** How many of the document's chunks a `websearch_to_tsquery(config, query)` finds. */
  matches(documentId: string, config: string, query: string): Promise<number>;
  /** How many of the document's chunks carry exactly `to_tsvector(config, content)`. */
  chunksVectorisedWith(documentId: string, config: string): Promise<number>;
  documentState(documentId: string): Promise<{
    index_status: 'pending' | 'indexed' | 'failed';
    indexed_hash: string | null;
    content_hash: string;
    indexed_at: Date | null;
  }>;
};

/**
 * Registers the file's `before`/`after` hooks (a test app with a workspace, an agent and a site
 * source) and returns the fixture; its helpers are plain functions, safe to destructure.
 */
export function indexDocumentApp(): IndexDocumentApp {
  let t: TestApp | undefined;
  let workspaceId = '';
  let agentId = '';
  let sourceId = '';
  let externalCounter = 0;
  const app = (): TestApp => {
    if (!t) throw new Error('the test app is not started yet (use the fixture inside tests)');
    return t;
  };

  before(async () => {
    const started = await createTestApp();
    t = started;
    const tenant = await seedTenant(started);
    workspaceId = tenant.workspace.id;
    const agent = await createAgent(
      {
        db: started.database.db,
        clock: started.clock,
        workspaceId,
        actor: { type: 'cli', id: null },
        queue: started.queue,
      },
      { name: 'Index bot' },
    );
    agentId = agent.id;
    sourceId = newId();
    await started.database.db
      .insertInto('sources')
      .values({
        id: sourceId,
        workspace_id: workspaceId,
        agent_id: agentId,
        type: 'site',
        name: 'https://shop.example.com (site content)',
        error: null,
        site_url: 'https://shop.example.com',
        plugin_version: '1.2.0',
        plugin_base: 'https://shop.example.com/wp-json/service/v1/',
        api_token_id: null,
        last_synced_at: new Date(),
      })
      .execute();
  });
  after(() => t?.close());

  return {
    get t() {
      return app();
    },
    get workspaceId() {
      return workspaceId;
    },
    async insertDocument(input) {
      externalCounter += 1;
      const id = newId();
      await app()
        .database.db.insertInto('documents')
        .values({
          id,
          workspace_id: workspaceId,
          agent_id: agentId,
          source_id: sourceId,
          external_id: String(externalCounter),
          kind: 'post',
          title: `Post ${externalCounter}`,
          url: `https://shop.example.com/p/${externalCounter}`,
          language: input.language,
          content_text: input.text,
          content_hash: input.hash,
          metadata: '{}',
          modified_at: '2026-01-01T10:00:00+00:00',
          indexed_hash: null,
          indexed_at: null,
        })
        .execute();
      return id;
    },
    runIndex(documentId) {
      return indexDocumentJob.handle(
        { documentId },
        {
          db: app().database.db,
          clock: app().clock,
          log: createLogger('silent'),
          jobId: 'test-job',
          attempt: 1,
          queue: app().queue,
        },
      );
    },
    async chunksOf(documentId) {
      const result = await sql<ChunkView>`
        select id, ordinal, content, tsv::text as tsv from chunks
        where document_id = ${documentId} order by ordinal`.execute(app().database.db);
      return result.rows;
    },
    async matches(documentId, config, query) {
      const result = await sql<{ n: number }>`
        select count(*)::int as n from chunks
        where document_id = ${documentId} and tsv @@ websearch_to_tsquery(${config}::regconfig, ${query})`.execute(
        app().database.db,
      );
      return result.rows[0]?.n ?? 0;
    },
    async chunksVectorisedWith(documentId, config) {
      const result = await sql<{ n: number }>`
        select count(*)::int as n from chunks
        where document_id = ${documentId} and tsv = to_tsvector(${config}::regconfig, content)`.execute(
        app().database.db,
      );
      return result.rows[0]?.n ?? 0;
    },
    documentState(documentId) {
      return app()
        .database.db.selectFrom('documents')
        .select(['index_status', 'indexed_hash', 'content_hash', 'indexed_at'])
        .where('id', '=', documentId)
        .executeTakeFirstOrThrow();
    },
  };
}

/** Long enough for several chunks at the default 1200 characters. */
export function longEnglish(topic: string, sentences: number): string {
  return Array.from(
    { length: sentences },
    (_, i) => `Sentence ${i} about ${topic}: customers asked about the ${topic} and we answered them.`,
  ).join(' ');
}
