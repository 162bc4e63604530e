import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { migrationStatus } from '../../db/migrate.js';

const ZReady = z.object({
  status: z.enum(['ready', 'not_ready', 'draining']),
  checks: z.object({
    database: z.enum(['ok', 'error']),
    migrations: z.object({ current: z.number(), expected: z.number() }),
  }),
  features: z.object({ vector: z.boolean(), trigram: z.boolean() }),
});

/** `GET /healthz` (process up) and `GET /readyz` (database reachable, migrations applied, not stopping). */
export function healthRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/healthz',
      {
        schema: {
          tags: ['ops'],
          summary: 'Liveness',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
        logLevel: 'warn',
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        schema: { tags: ['ops'], summary: 'Readiness', response: { 200: ZReady, 503: ZReady } },
        logLevel: 'warn',
      },
      async (_request, reply) => {
        let database: 'ok' | 'error' = 'ok';
        let migrations = { current: 0, expected: deps.expectedMigrations };
        try {
          migrations = await migrationStatus(deps.database.pool, deps.expectedMigrations);
        } catch {
          database = 'error';
        }
        const draining = deps.drainState?.draining === true;
        const ready = !draining && database === 'ok' && migrations.current === migrations.expected;
        return reply.status(ready ? 200 : 503).send({
          status: draining ? 'draining' : ready ? 'ready' : 'not_ready',
          checks: { database, migrations },
          features: deps.database.features,
        });
      },
    );
  };
}
