import { roleCan, ZServiceError } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import { serveEventStream } from '../../http/event-stream.js';
import { actingUserId } from '../../services/context.js';
import { runAdminStream } from '../../services/events/admin-stream.js';
import { AdminEventHub } from '../../services/events/event-hub.js';
import { adminCaller } from './admin-auth.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

const tags = ['admin: stream'];

/** Open admin streams per credential (session or token) on one service instance; beyond it, 429. */
export const MAX_STREAMS_PER_CREDENTIAL = 8;

/** Bytes a stream may have written that its client has not taken yet; a slower client is dropped. */
export const STREAM_MAX_BUFFERED_BYTES = 512 * 1024;

/** A stored event id: a positive decimal int8. */
const ZEventId = z
  .string()
  .regex(/^\d{1,18}$/, 'an event id: digits only')
  .describe('Resume after this event id (the last `id:` the client received)');

const ZStreamQuery = z.strictObject({ last_event_id: ZEventId.optional() });

/**
 * `GET /api/v1/admin/stream`: the admin event stream (Server-Sent Events) of the caller's
 * workspace; see packages/contract/src/admin-events.ts for the frames and docs/admin-api.md.
 */
export function streamRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const hub = new AdminEventHub(deps.database.listen);
    const open = new Map<string, number>();
    const streams = new Set<AbortController>();
    // Shutdown ends every stream cleanly (the client reconnects to another instance and resumes).
    app.addHook('preClose', async () => {
      for (const stream of streams) stream.abort();
    });
    app.addHook('onClose', async () => {
      await hub.close();
    });

    app.get(
      '/stream',
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags,
          summary: 'The admin event stream of the workspace (server-sent events, resumable)',
          description:
            'text/event-stream. Frames: `id: <event id>` (stored events only), `event: <type>`, `data: <JSON>`. ' +
            'First `stream.ready {operators_online}`, then (when resuming with the `Last-Event-ID` header or ' +
            '`?last_event_id=`) the stored events after that id, or `stream.reset` when they are no longer ' +
            'all kept (24 h), then live events: conversation.created, conversation.updated, ' +
            'conversation.handoff_requested, message.created, typing (no id), lead.created, source.progress. ' +
            '`: keep-alive` comments every 15 s. At most 8 open streams per session or token per instance (429).',
          security: bearerSecurity,
          querystring: ZStreamQuery,
          response: {
            ...adminErrorResponses,
            429: ZServiceError.describe(
              'Too many open streams for this session or token, or over the rate budget',
            ),
          },
        },
      },
      async (request, reply) => {
        const auth = adminCaller(request);
        const header = request.headers['last-event-id'];
        const headerId = typeof header === 'string' && header !== '' ? header : undefined;
        if (headerId !== undefined && !ZEventId.safeParse(headerId).success) {
          throw new AppError('validation_failed', {
            message: 'Last-Event-ID must be an event id (digits only).',
            errors: { 'Last-Event-ID': ['an event id: digits only'] },
          });
        }
        const lastEventId = headerId ?? request.query.last_event_id ?? null;
        const key = auth.sessionId !== null ? `session:${auth.sessionId}` : `token:${auth.actor.id}`;
        const count = open.get(key) ?? 0;
        if (count >= MAX_STREAMS_PER_CREDENTIAL) {
          throw new AppError('rate_limited', {
            message: `At most ${MAX_STREAMS_PER_CREDENTIAL} event streams may be open at once; close one first.`,
          });
        }
        open.set(key, count + 1);
        const shutdown = new AbortController();
        streams.add(shutdown);
        // Only a person signed in (not a token, not an operator viewing as a member) counts as online.
        const isPerson = auth.actor.type === 'user' && auth.actor.impersonatorId === undefined;
        const userId = isPerson ? actingUserId(auth.actor) : null;
        try {
          await serveEventStream(
            request,
            reply,
            {},
            ({ send, signal }) =>
              runAdminStream({
                db: deps.database.db,
                clock: deps.clock,
                hub,
                workspaceId: auth.workspaceId,
                operatorUserId: userId !== null && roleCan(auth.role, 'conversations.reply') ? userId : null,
                lastEventId,
                send: (event) => send({ id: event.id, event: event.type, data: event }),
                signal: AbortSignal.any([signal, shutdown.signal]),
              }),
            { maxBufferedBytes: STREAM_MAX_BUFFERED_BYTES },
          );
        } finally {
          streams.delete(shutdown);
          const left = (open.get(key) ?? 1) - 1;
          if (left <= 0) open.delete(key);
          else open.set(key, left);
        }
      },
    );
  };
}
