import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { findDemoAgent } from '../../services/ops/demo-seed.js';
import { WIDGET_BUNDLE_PATH, type WidgetAssets } from '../../widget-assets/widget-manifest.js';

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function page(body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat agent demo</title></head>
<body>
<h1>Chat agent demo</h1>
${body}
</body>
</html>
`;
}

/**
 * `GET /demo`: a plain host page that embeds the demo agent exactly as a customer's site would
 * (one script tag), so a first start can be tried at once with no key.
 */
export function demoRoutes(deps: AppDeps, assets: WidgetAssets): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/demo',
      {
        schema: {
          tags: ['public: demo'],
          summary: 'A demo page embedding the seeded demo agent (HTML)',
          produces: ['text/html'],
          response: { 200: z.string(), 404: z.string() },
        },
      },
      async (_request, reply) => {
        const agentId = await findDemoAgent(deps.database.db);
        reply.type('text/html; charset=utf-8');
        if (!agentId) {
          return reply
            .code(404)
            .send(
              page(
                '<p>There is no demo agent: the demo is off (DEMO_SEED=false) or its workspace was removed.</p>',
              ),
            );
        }
        const hash = (await assets.manifest())?.widget.hash;
        const src = `${WIDGET_BUNDLE_PATH}${hash ? `?v=${hash}` : ''}`;
        return reply.send(
          page(
            `<p>This page embeds the <strong>demo assistant</strong> of a made-up coffee roaster, the way a customer site would.
Open the chat in the corner and ask, for example, “How long does shipping take?” or “Can I return an opened bag?”.</p>
<p>The snippet on this page:</p>
<pre>${escapeHtml(`<script src="${src}" data-agent-id="${agentId}" async></script>`)}</pre>
<script src="${escapeHtml(src)}" data-agent-id="${escapeHtml(agentId)}" async></script>`,
          ),
        );
      },
    );
  };
}
