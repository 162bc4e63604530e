import { ZServiceError } from '@service/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { AppError } from '../../errors/app-error.js';
import { WIDGET_BUNDLE_PATH, widgetAssets } from '../../widget-assets/widget-manifest.js';
import { adminErrorResponses, bearerSecurity } from './common.schema.js';

/** Where the preview page is, under the admin prefix (the session cookie is sent there only). */
export const WIDGET_PREVIEW_PATH = '/widget-preview';

/**
 * The preview page's policy: its own scripts only (the widget bundle), the widget's locale files
 * over `connect-src`, no inline anything, and framed by the console only (`frame-ancestors
 * 'self'`). The widget styles itself through constructed stylesheets, which `style-src` allows.
 */
export const WIDGET_PREVIEW_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

/** The page: nothing but the real bundle, marked `data-preview` (no init, no visitor, no token). */
function previewPage(scriptUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Widget preview</title></head>
<body>
<script src="${scriptUrl}" data-preview async></script>
</body>
</html>
`;
}

/**
 * `GET /api/v1/admin/widget-preview`: the page the console's agent settings frame to show the
 * real widget bundle as it would look with unsaved edits. The bundle runs in preview mode: it
 * calls no widget route (so no visitor, conversation or token is made) and takes the agent's
 * look from the framing console by `postMessage`, accepted only from the parent window of
 * this same origin. Admin auth like every admin route, so only a signed-in console frames it.
 */
export function widgetPreviewRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  const assets = deps.widgetAssets ?? widgetAssets(deps.config.widgetDistDir);
  return async (app) => {
    app.get(
      WIDGET_PREVIEW_PATH,
      {
        config: { permission: 'workspace.read' },
        schema: {
          tags: ['admin: agents'],
          summary: 'The widget preview page the console frames (HTML)',
          description:
            'Loads the served widget bundle in preview mode: no widget call is made; the look comes from ' +
            'the framing console page by postMessage. Framed by the same origin only.',
          security: bearerSecurity,
          produces: ['text/html'],
          response: {
            200: z.string().describe('HTML'),
            ...adminErrorResponses,
            503: ZServiceError.describe('The widget has not been built'),
          },
        },
      },
      async (_request, reply) => {
        const hash = (await assets.manifest())?.widget.hash;
        if (!hash)
          throw new AppError('not_ready', { message: 'The widget has not been built (npm run build).' });
        return reply
          .header('content-security-policy', WIDGET_PREVIEW_CSP)
          .header('x-frame-options', 'SAMEORIGIN')
          .header('cache-control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(previewPage(`${WIDGET_BUNDLE_PATH}?v=${hash}`));
      },
    );
  };
}
