import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { healthRoutes } from './health.route.js';

/** Where the operations endpoints are mounted: the root, where probes expect `/healthz` and `/readyz`. */
export const OPS_PREFIX = '';

/** The operations surface: liveness and readiness, no auth (they tell nothing about any tenant). */
export function opsSurface(deps: AppDeps) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(healthRoutes(deps));
  };
}
