import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { WIDGET_BUNDLE_PATH, type WidgetAssets } from '../../widget-assets/widget-manifest.js';

/**
 * The public pages' policy (KB, `/demo`): the contract's directives, with no `unsafe-inline`
 * anywhere (the pages' only stylesheet and script come from this origin). Images may also come
 * from any https host (a workspace's logo, article images) and `data:` (the widget's icons).
 */
export const PUBLIC_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/** Replaces the service-wide policy (which allows inline styles for the API docs) on every response of `app`. */
export function usePublicPagePolicy(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', PUBLIC_PAGE_CSP);
  });
}

/**
 * The public origin pages link to in canonical and Open Graph addresses: PUBLIC_BASE_URL when set
 * (operators behind a proxy should set it), else the request's own scheme and host.
 */
export function publicBaseOf(deps: AppDeps, request: FastifyRequest): string {
  return deps.config.publicBaseUrl ?? `${request.protocol}://${request.host}`;
}

/** The widget loader's address with its cache-busting hash, or `null` while the widget is not built. */
export async function widgetLoaderSrc(assets: WidgetAssets): Promise<string | null> {
  const hash = (await assets.manifest())?.widget.hash;
  return hash ? `${WIDGET_BUNDLE_PATH}?v=${hash}` : null;
}
