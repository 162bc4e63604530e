import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { fetchSourceJob } from '../../src/jobs/fetch-source/fetch-source.js';
import { indexDocumentJob } from '../../src/jobs/index-document.js';
import { createLogger } from '../../src/logger.js';
import { type TestApp, workerContext } from './test-app.js';

/** Helpers shared by the text/url source tests. */
// Every HTTP server here binds to 127.0.0.1. The only other URL fetched is a cloud metadata IP
// literal, which the guard refuses before any DNS lookup or connection.

export type CountingServer = {
  port: number;
  requests: string[];
  page: { body: string; type: string };
  close(): Promise<void>;
};

export async function startServer(): Promise<CountingServer> {
  const requests: string[] = [];
  const page = { body: '', type: 'text/html; charset=utf-8' };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.url ?? '');
    res.writeHead(200, { 'content-type': page.type });
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    requests,
    page,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Runs the fetch-source handler as the worker would, with the app's config (SAFE_URL_ALLOW, APP_KEY, CRAWL_DELAY_MS) and queue. */
export function runFetchJob(
  app: TestApp,
  sourceId: string,
  log: Logger = createLogger('silent'),
): Promise<void> {
  return fetchSourceJob.handle({ sourceId }, workerContext(app, { log }));
}

/** Runs the index job of every document of a source that is not indexed yet, and marks its queued job done as the worker would. */
export async function indexSource(app: TestApp, sourceId: string): Promise<number> {
  const pending = await app.database.db
    .selectFrom('documents')
    .select('id')
    .where('source_id', '=', sourceId)
    .where('index_status', '<>', 'indexed')
    .execute();
  for (const doc of pending) {
    await indexDocumentJob.handle(
      { documentId: doc.id },
      {
        db: app.database.db,
        clock: app.clock,
        log: createLogger('silent'),
        jobId: 'test',
        attempt: 1,
        queue: app.queue,
      },
    );
    await completeJobs(app, 'index-document', doc.id);
  }
  return pending.length;
}

/** Every job of `name` keyed `key`, in any state. */
export async function jobsFor(app: TestApp, name: string, key: string): Promise<number> {
  const result = await sql<{ n: string }>`
    select count(*) as n from pgboss.job where name = ${name} and singleton_key = ${key}`.execute(
    app.database.db,
  );
  return Number(result.rows[0]?.n ?? 0);
}

/** Marks a key's queued jobs done, as the worker would after running them. */
export async function completeJobs(app: TestApp, name: string, key: string): Promise<void> {
  await sql`update pgboss.job set state = 'completed' where name = ${name} and singleton_key = ${key}
    and state = 'created'`.execute(app.database.db);
}

export async function sourceRow(app: TestApp, id: string) {
  return app.database.db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function documentsOfSource(app: TestApp, id: string) {
  return app.database.db.selectFrom('documents').selectAll().where('source_id', '=', id).execute();
}

export const PAGE_V1 =
  '<html><head><title>Returns &amp; refunds</title></head><body><nav>Menu Home Shop</nav>' +
  '<h1>Returns</h1><p>Parcels may be returned within thirty days for a full refund.</p></body></html>';
export const PAGE_V2 = PAGE_V1.replace('thirty days', 'sixty days');
