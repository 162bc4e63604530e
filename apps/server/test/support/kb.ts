import assert from 'node:assert/strict';
import { type TKbArticle, type TSearchHit, ZKbArticle, ZSearchResult, ZSource } from '@service/contract';
import { expectData, expectPage } from './http.js';
import { documentsOf, runIndexJob } from './site-sync.js';
import { completeJobs, jobsFor } from './sources.js';
import { injectJson, type Tenant, type TestApp } from './test-app.js';

/** Helpers of the knowledge-base indexing tests. */

/** The admin KB articles route. */
export const KB_ARTICLES = '/api/v1/admin/kb/articles';

/** Documents of an agent's kb source. */
export async function kbDocuments(t: TestApp, agentId: string) {
  return (await documentsOf(t, agentId)).filter((doc) => doc.kind === 'kb_article');
}

/** The agent's kb source through the admin API, or undefined. */
export async function kbSource(t: TestApp, tenant: Tenant, agentId: string) {
  const res = await t.app.inject({ url: `/api/v1/admin/agents/${agentId}/sources`, headers: tenant.auth });
  const sources = expectPage(res, 200, ZSource);
  const kb = sources.filter((source) => source.type === 'kb');
  assert.ok(kb.length <= 1, 'at most one kb source per agent');
  return kb[0];
}

/** Runs the index job of every pending document of the agent, then marks the jobs done. */
export async function indexAll(t: TestApp, agentId: string): Promise<void> {
  for (const doc of await documentsOf(t, agentId)) {
    if (doc.index_status !== 'pending') continue;
    await runIndexJob(t, doc.id);
    await completeJobs(t, 'index-document', doc.id);
  }
}

/** Index jobs waiting for a document. */
export async function waitingJobs(t: TestApp, documentId: string): Promise<number> {
  const total = await jobsFor(t, 'index-document', documentId);
  const done = await t.database.db
    .withSchema('pgboss')
    .selectFrom('job' as never)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('singleton_key' as never, '=', documentId as never)
    .where('state' as never, '=', 'completed' as never)
    .executeTakeFirstOrThrow();
  return total - Number(done.n);
}

/** Article writes and searches through the admin API, as a tenant. */
export function kbClient(app: () => TestApp) {
  const write = (tenant: Tenant, method: 'POST' | 'PATCH' | 'DELETE', url: string, body: unknown) =>
    injectJson(app().app, method, url, body, tenant.auth);
  return {
    write,
    create: async (tenant: Tenant, body: Record<string, unknown>): Promise<TKbArticle> =>
      expectData(await write(tenant, 'POST', KB_ARTICLES, body), 201, ZKbArticle),
    patch: async (tenant: Tenant, id: string, body: Record<string, unknown>): Promise<TKbArticle> =>
      expectData(await write(tenant, 'PATCH', `${KB_ARTICLES}/${id}`, body), 200, ZKbArticle),
    search: async (tenant: Tenant, agentId: string, query: string): Promise<TSearchHit[]> => {
      const res = await write(tenant, 'POST', `/api/v1/admin/agents/${agentId}/search`, { query });
      return expectData(res, 200, ZSearchResult).hits;
    },
  };
}
