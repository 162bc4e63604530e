import {
  dataEnvelope,
  ZChangeResult,
  ZCouponsResult,
  ZCouponsSync,
  ZHandshakeRequest,
  ZHandshakeResponse,
  ZPostsChanged,
  ZPostsSync,
  ZProductsChanged,
  ZProductsSync,
  ZServiceError,
  ZSyncResult,
} from '@service/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../app-deps.js';
import {
  changePost,
  changeProduct,
  handshake,
  type SyncDeps,
  syncCoupons,
  syncPosts,
  syncProducts,
} from '../../services/knowledge/site-sync.js';
import { integrationCaller } from './site-sync-auth.js';

const tags = ['site integration'];
const security = [{ bearerAuth: [] }];
const errors = {
  401: ZServiceError.describe(
    'Missing/unknown/revoked token (no detail), missing_signature or signature_mismatch',
  ),
  403: ZServiceError.describe('The token lacks wp:integration'),
  404: ZServiceError.describe('Unknown agent_id (or another workspace’s)'),
  422: ZServiceError.describe('Validation failed; nothing stored or queued'),
  429: ZServiceError.describe('More than the per-token limit per minute; see Retry-After'),
};
/** Route options of the mutating routes: the body must be signed. */
const signed = { config: { signed: true } };

/** The handshake and the signed posts/products/coupons sync routes. */
export function syncRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const syncDeps = (request: FastifyRequest): SyncDeps => ({
    db: deps.database.db,
    clock: deps.clock,
    queue: deps.queue,
    caller: integrationCaller(request),
  });

  return async (app) => {
    app.post(
      '/handshake',
      {
        schema: {
          tags,
          security,
          summary: 'Discover the workspace, its agents and the signing secret (not signed)',
          body: ZHandshakeRequest,
          response: { 200: dataEnvelope(ZHandshakeResponse), ...errors },
        },
      },
      async (request) => {
        const { db, caller } = syncDeps(request);
        return { data: await handshake(db, caller, request.body) };
      },
    );

    app.post(
      '/posts/sync',
      {
        ...signed,
        schema: {
          tags,
          security,
          summary: 'Upsert 1–50 posts',
          body: ZPostsSync,
          response: { 200: dataEnvelope(ZSyncResult), ...errors },
        },
      },
      async (request) => ({ data: await syncPosts(syncDeps(request), request.body) }),
    );

    app.post(
      '/posts/changed',
      {
        ...signed,
        schema: {
          tags,
          security,
          summary: 'One post delta: upsert or delete',
          body: ZPostsChanged,
          response: { 200: dataEnvelope(ZChangeResult), ...errors },
        },
      },
      async (request) => ({ data: await changePost(syncDeps(request), request.body) }),
    );

    app.post(
      '/products/sync',
      {
        ...signed,
        schema: {
          tags,
          security,
          summary: 'Upsert 1–50 products',
          body: ZProductsSync,
          response: { 200: dataEnvelope(ZSyncResult), ...errors },
        },
      },
      async (request) => ({ data: await syncProducts(syncDeps(request), request.body) }),
    );

    app.post(
      '/products/changed',
      {
        ...signed,
        schema: {
          tags,
          security,
          summary: 'One product delta: upsert or delete',
          body: ZProductsChanged,
          response: { 200: dataEnvelope(ZChangeResult), ...errors },
        },
      },
      async (request) => ({ data: await changeProduct(syncDeps(request), request.body) }),
    );

    app.post(
      '/coupons/sync',
      {
        ...signed,
        schema: {
          tags,
          security,
          summary: 'Replace the stored coupon list',
          body: ZCouponsSync,
          response: { 200: dataEnvelope(ZCouponsResult), ...errors },
        },
      },
      async (request) => ({ data: await syncCoupons(syncDeps(request), request.body) }),
    );
  };
}
