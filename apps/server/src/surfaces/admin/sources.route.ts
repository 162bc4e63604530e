import {
  dataEnvelope,
  listPage,
  ZListQuery,
  ZSource,
  ZSourceCreate,
  ZSourceCreateSql,
  ZSourceFailure,
  ZSourceUpdate,
  ZSqlTestResult,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { SOURCE_CREATE_BODY_LIMIT } from '../../http/body-limits.js';
import { listSourceFailures } from '../../services/knowledge/source-failures.js';
import type { SourceView } from '../../services/knowledge/source-view.js';
import {
  createSource,
  deleteSource,
  getSource,
  listAgentSources,
  reindexSource,
  updateSource,
} from '../../services/knowledge/sources.js';
import { testSqlSource } from '../../services/knowledge/sql-test.js';
import { adminCaller, adminScope, refuseImpersonation } from './admin-auth.js';
import { bearerSecurity, recordErrorResponses, ZIdParams } from './common.schema.js';
import { pageBody, pageRequestOf } from './list-page.js';

const tags = ['admin: sources'];

/** The admin's scope with the active embedding provider's key, for a source's chunk counts. */
function viewScope(deps: AppDeps, request: FastifyRequest) {
  return { ...adminScope(deps, request), embeddingsKey: deps.embeddings?.key ?? null } satisfies SourceView;
}

/** `/api/v1/admin/agents/{id}/sources` and `/api/v1/admin/sources/{id}`. */
export function sourceRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/agents/:id/sources',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: "List an agent's knowledge sources, oldest first, a page at a time",
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZListQuery,
          response: { 200: listPage(ZSource), ...recordErrorResponses },
        },
      },
      async (request) =>
        pageBody(
          await listAgentSources(
            viewScope(deps, request),
            request.params.id,
            pageRequestOf(deps, request.query),
          ),
        ),
    );

    app.get(
      '/sources/:id',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'Read a source',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 200: dataEnvelope(ZSource), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await getSource(viewScope(deps, request), request.params.id),
      }),
    );

    app.get(
      '/sources/:id/failures',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'List the pages the last fetch of a source could not store, a page at a time',
          description:
            'Each failed page of the running fetch (or of the last one) with the reason verbatim, in ' +
            'the order they failed. A fetch clears the list when it starts.',
          security: bearerSecurity,
          params: ZIdParams,
          querystring: ZListQuery,
          response: { 200: listPage(ZSourceFailure), ...recordErrorResponses },
        },
      },
      async (request) =>
        pageBody(
          await listSourceFailures(
            adminScope(deps, request),
            request.params.id,
            pageRequestOf(deps, request.query),
          ),
        ),
    );

    app.patch(
      '/sources/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: "Change a synced site's plugin_base",
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSourceUpdate,
          response: { 200: dataEnvelope(ZSource), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await updateSource(viewScope(deps, request), request.params.id, request.body),
      }),
    );

    app.post(
      '/agents/:id/sources',
      {
        config: { permission: 'workspace.configure', expensive: true },
        bodyLimit: SOURCE_CREATE_BODY_LIMIT,
        schema: {
          tags,
          summary: 'Add a text, url, crawl, sitemap or sql source to an agent',
          description:
            'A text source is stored as one document and queued for indexing (status indexing). ' +
            'url, crawl, sitemap and sql sources are queued (status queued) for a fetch through the ' +
            'crawl-safety guard; a refused or failed fetch sets status failed with the reason in error. ' +
            'An sql query must be one read-only SELECT (422 otherwise); its password is stored ' +
            'encrypted and never returned. Site plugin sources are created by syncs only; files by uploads.',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSourceCreate,
          response: { 201: dataEnvelope(ZSource), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        // An sql source stores a database password: not for an operator viewing as a member.
        if (request.body.type === 'sql') refuseImpersonation(adminCaller(request));
        const scope = { ...viewScope(deps, request), queue: deps.queue, appKey: deps.config.appKey };
        const source = await createSource(scope, request.params.id, request.body);
        return reply.status(201).send({ data: source });
      },
    );

    app.post(
      '/agents/:id/sources/test-sql',
      {
        config: {
          permission: 'workspace.configure',
          expensive: true,
          impersonation: 'refused',
        },
        schema: {
          tags,
          summary: 'Test an SQL source before adding it: connect, run the query read-only, preview 3 rows',
          description:
            'The body is an sql source as for POST /agents/{id}/sources. The query gets the same read-only ' +
            'SELECT check (422 errors.query), then runs through the same crawl-safety guard, read-only ' +
            'transaction and statement timeout as the fetch job, capped at 3 rows. Nothing is stored. ' +
            'A refused host or a connection or query error is 200 with ok false and the reason.',
          security: bearerSecurity,
          params: ZIdParams,
          body: ZSourceCreateSql,
          response: { 200: dataEnvelope(ZSqlTestResult), ...recordErrorResponses },
        },
      },
      async (request) => ({
        data: await testSqlSource(adminScope(deps, request), request.params.id, request.body, {
          allow: deps.config.safeUrlAllow,
        }),
      }),
    );

    app.delete(
      '/sources/:id',
      {
        config: { permission: 'workspace.configure' },
        schema: {
          tags,
          summary: 'Delete a source with its documents and chunks',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 204: z.null().describe('Deleted'), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        await deleteSource(adminScope(deps, request), request.params.id);
        return reply.status(204).send(null);
      },
    );

    app.post(
      '/sources/:id/reindex',
      {
        config: { permission: 'workspace.configure', expensive: true },
        schema: {
          tags,
          summary: 'Re-fetch and re-index what changed',
          description:
            'url, crawl, sitemap and sql sources are queued for a fresh fetch: only pages or rows whose ' +
            'content hash changed are re-indexed, and pages or rows that are gone are removed. Text and ' +
            'upload sources are re-indexed only where not indexed at their current hash (no re-upload); ' +
            'a kb source is rebuilt from the published articles. ' +
            'Site plugin sources (site, products) are 422.',
          security: bearerSecurity,
          params: ZIdParams,
          response: { 202: dataEnvelope(ZSource), ...recordErrorResponses },
        },
      },
      async (request, reply) => {
        const scope = {
          ...adminScope(deps, request),
          queue: deps.queue,
          publicBaseUrl: deps.config.publicBaseUrl,
          embeddingsKey: deps.embeddings?.key ?? null,
        };
        const source = await reindexSource(scope, request.params.id);
        return reply.status(202).send({ data: source });
      },
    );
  };
}
