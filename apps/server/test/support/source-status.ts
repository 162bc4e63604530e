import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';
import { type TSource, ZSource } from '@service/contract';
import type { Kysely } from 'kysely';
import type { DB } from '../../src/db/schema.js';
import type { EmbeddingProvider } from '../../src/embeddings/index.js';
import { embedChunksJob } from '../../src/jobs/embed-chunks.js';
import { indexDocumentJob } from '../../src/jobs/index-document.js';
import { createLogger } from '../../src/logger.js';
import { expectData } from './http.js';
import { createAgent } from './site-sync.js';
import { completeJobs } from './sources.js';
import { createTestApp, injectJson, seedTenant, type Tenant, type TestApp } from './test-app.js';

// What the source-status tests share: a sitemap site on 127.0.0.1, an app allowed to fetch it,
// a workspace (Acme) with one agent, and the worker steps the tests run by hand.

/** Pages the sitemap lists: several flushes of the crawl (it stores 10 pages per transaction). */
export const PAGES = 60;
/**
 * While serving this page, the test site runs every index job queued so far (as a worker would):
 * by then the first flush (10 pages) is stored. Early, so that work stays well within the
 * crawl's 15 s page budget even on a loaded machine.
 */
export const PAUSE_AT = 12;

export type Site = {
  port: number;
  /** Called before answering a page request; its promise is awaited. */
  onPage: (i: number) => Promise<void>;
  close(): Promise<void>;
};

/** A sitemap of PAGES pages on 127.0.0.1; `onPage` runs while the crawl waits for a page. */
export async function startSite(): Promise<Site> {
  const site: Site = { port: 0, onPage: async () => {}, close: async () => {} };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    if (path === '/sitemap.xml') {
      const urls = Array.from({ length: PAGES }, (_, i) => `<url><loc>${origin(site)}/p/${i}</loc></url>`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
      );
    }
    const match = /^\/p\/(\d+)$/.exec(path);
    if (!match) return res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
    const i = Number(match[1]);
    return void site
      .onPage(i)
      .then(() =>
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(
            `<!doctype html><html lang="en"><head><title>Page ${i}</title></head><body><main><h1>Page ${i}</h1>` +
              `<p>Guide ${i}: the lantern model ${i} keeps its charge for ${i + 3} nights on the trail.</p></main></body></html>`,
          ),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.port = (server.address() as AddressInfo).port;
  site.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return site;
}

export const origin = (site: Site) => `http://127.0.0.1:${site.port}`;

/** A db handle whose first `transaction()` throws `boom` (an index job failing mid-way); the rest works. */
export function dbFailingFirstTransaction(db: Kysely<DB>): Kysely<DB> {
  let failed = false;
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction' && !failed) {
        failed = true;
        return () => ({
          execute: () => Promise.reject(new Error('boom')),
        });
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A site whose sitemap lists no page. */
export async function startEmptySitemap(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.url === '/sitemap.xml') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      return res.end(
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>',
      );
    }
    return res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The fixture of a source-status test file; its helpers are plain functions, safe to destructure. */
export type SourceStatusApp = {
  readonly t: TestApp;
  readonly site: Site;
  readonly acme: Tenant;
  readonly agentId: string;
  readonly embeddings: EmbeddingProvider | null;
  /** The source as the admin API shows it. */
  get(id: string): Promise<TSource>;
  /** Creates a source of the agent through the admin API. */
  create(body: unknown): Promise<TSource>;
  /** The context a worker hands a handler (on `db`, at `attempt`). */
  jobContext(
    db?: Kysely<DB>,
    attempt?: number,
  ): {
    db: Kysely<DB>;
    clock: TestApp['clock'];
    log: ReturnType<typeof createLogger>;
    jobId: string;
    attempt: number;
    embeddings: EmbeddingProvider | null;
    queue: TestApp['queue'];
  };
  /** Runs the index job of every pending document of the source, in the given order; returns how many. */
  indexPending(sourceId: string, order?: 'asc' | 'desc'): Promise<number>;
  /** Runs the agent's embedding run, as the worker would once the index jobs queued it. */
  embed(): Promise<void>;
  /** Chunks of the source without a vector under the active provider. */
  chunksWithoutVector(sourceId: string): Promise<number>;
};

/** Registers the file's `before`/`after` hooks (the site, the app, Acme and its agent) and returns the fixture. */
export function sourceStatusApp(): SourceStatusApp {
  let started: { t: TestApp; site: Site; acme: Tenant; agentId: string } | undefined;
  const state = () => {
    if (!started) throw new Error('the test app is not started yet (use the fixture inside tests)');
    return started;
  };
  const embeddingsOf = () => state().t.embeddings;

  const get = async (id: string) =>
    expectData(
      await state().t.app.inject({ url: `/api/v1/admin/sources/${id}`, headers: state().acme.auth }),
      200,
      ZSource,
    );
  const create = async (body: unknown) =>
    expectData(
      await injectJson(
        state().t.app,
        'POST',
        `/api/v1/admin/agents/${state().agentId}/sources`,
        body,
        state().acme.auth,
      ),
      201,
      ZSource,
    );
  const jobContext = (db: Kysely<DB> = state().t.database.db, attempt = 1) => ({
    db,
    clock: state().t.clock,
    log: createLogger('silent'),
    jobId: 'test',
    attempt,
    embeddings: embeddingsOf(),
    queue: state().t.queue,
  });
  const indexPending = async (sourceId: string, order: 'asc' | 'desc' = 'asc') => {
    const { t } = state();
    const pending = await t.database.db
      .selectFrom('documents')
      .select('id')
      .where('source_id', '=', sourceId)
      .where('index_status', '=', 'pending')
      .orderBy('id', order)
      .execute();
    for (const doc of pending) {
      await indexDocumentJob.handle({ documentId: doc.id }, jobContext());
      await completeJobs(t, 'index-document', doc.id);
    }
    return pending.length;
  };
  const embed = async () => {
    const { t, agentId } = state();
    await embedChunksJob.handle({ agentId }, jobContext());
    await completeJobs(t, 'embed-chunks', agentId);
  };
  const chunksWithoutVector = async (sourceId: string) => {
    const embeddings = embeddingsOf();
    if (!embeddings) return 0;
    const key = embeddings.key;
    const row = await state()
      .t.database.db.selectFrom('chunks')
      .innerJoin('documents', 'documents.id', 'chunks.document_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('documents.source_id', '=', sourceId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('embeddings')
              .select('embeddings.content_hash')
              .whereRef('embeddings.agent_id', '=', 'chunks.agent_id')
              .whereRef('embeddings.content_hash', '=', 'chunks.content_hash')
              .where('embeddings.model', '=', key),
          ),
        ),
      )
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  before(async () => {
    const site = await startSite();
    const t = await createTestApp({ env: { SAFE_URL_ALLOW: `127.0.0.1:${site.port}`, CRAWL_DELAY_MS: '0' } });
    const acme = await seedTenant(t, 'Acme');
    const agentId = await createAgent(t, acme, { language_default: 'en' });
    started = { t, site, acme, agentId };
  });
  after(async () => {
    await started?.t.close();
    await started?.site.close();
  });

  return {
    get t() {
      return state().t;
    },
    get site() {
      return state().site;
    },
    get acme() {
      return state().acme;
    },
    get agentId() {
      return state().agentId;
    },
    get embeddings() {
      return embeddingsOf();
    },
    get,
    create,
    jobContext,
    indexPending,
    embed,
    chunksWithoutVector,
  };
}
