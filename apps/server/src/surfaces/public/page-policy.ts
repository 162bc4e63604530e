import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../app-deps.js';
import { WIDGET_BUNDLE_PATH, type WidgetAssets } from '../../widget-assets/widget-manifest.js';

/**
 * The public pages' policy (KB, `/demo`): the contract's directives, with no `unsafe-inline`
 * anywhere (the pages' only stylesheet and script come from this origin). Images may also come
 * from any https host (a workspace's logo, article images) and `data:` (the widget's icons).
 */
export const PUBLIC_PAGE_CSP = publicPagePolicy();

/** An exact origin a policy may name: scheme, host (name, IPv4 or bracketed IPv6) and port only. */
const CSP_ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The public pages' policy; `imageOrigins` (the embedded agent's allowed origins) may add image
 * sources, so the widget's product cards show the shop's images even from a plain-http shop.
 * Anything that is not an exact origin (`*`, a value with spaces or `;`) is left out.
 */
export function publicPagePolicy(imageOrigins: readonly string[] = []): string {
  const extra = [...new Set(imageOrigins.filter((origin) => CSP_ORIGIN.test(origin)))];
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    ["img-src 'self' data: https:", ...extra].join(' '),
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
}

const pageImageOrigins = new WeakMap<FastifyReply, readonly string[]>();

/** Lets the images of an embedded agent's allowed origins into this response's policy. */
export function allowPageImages(reply: FastifyReply, origins: readonly string[]): void {
  pageImageOrigins.set(reply, origins);
}

/** Replaces the service-wide policy (which allows inline styles for the API docs) on every response of `app`. */
export function usePublicPagePolicy(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('content-security-policy', publicPagePolicy(pageImageOrigins.get(reply)));
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
