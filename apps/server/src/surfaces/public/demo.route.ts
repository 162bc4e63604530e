import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app-deps.js';
import { documentHtml, escapeHtml } from '../../kb/page-layout.js';
import { findDemoEmbed } from '../../services/ops/demo-seed.js';
import { WIDGET_BUNDLE_PATH, type WidgetAssets } from '../../widget-assets/widget-manifest.js';
import { allowPageImages, usePublicPagePolicy, widgetLoaderSrc } from './page-policy.js';

const TITLE = 'Try the chat assistant';
const DESCRIPTION = 'A demo page embedding the sample assistant of a made-up coffee roaster.';

/** Questions the sample knowledge answers (services/ops/demo-seed.ts). */
const QUESTIONS = [
  'How long does shipping take?',
  'Can I return an opened bag?',
  'Which coffee is best for espresso?',
  'When is the roastery shop open?',
];

function page(
  main: string,
  scripts: ReadonlyArray<{ src: string; attributes: Record<string, string> }> = [],
) {
  // Indexable on purpose: crawling /demo is the quickest first source to try in the console.
  return documentHtml(
    { title: `${TITLE} · Demo`, description: DESCRIPTION, scripts },
    [
      '<header class="site-header"><div class="wrap"><span class="brand">Chat agent demo</span></div></header>',
      `<main id="main" class="wrap"><div class="article">\n${main}\n</div></main>`,
    ].join('\n'),
  );
}

/**
 * `GET /demo`: a plain host page that embeds the demo agent exactly as a customer's site would
 * (one script tag), so a first start can be tried at once with no key.
 */
export function demoRoutes(deps: AppDeps, assets: WidgetAssets): FastifyPluginAsyncZod {
  return async (app) => {
    usePublicPagePolicy(app);
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
        const demo = await findDemoEmbed(deps.database.db);
        reply.type('text/html; charset=utf-8');
        if (!demo) {
          return reply
            .code(404)
            .send(
              page(
                `<h1>The demo is off</h1>\n<p>There is no demo agent: the demo is off (<code>DEMO_SEED=false</code>) or its workspace was removed. Sign in to the <a href="/admin/">console</a> to create an agent of your own.</p>`,
              ),
            );
        }
        const agentId = demo.id;
        allowPageImages(reply, demo.allowedOrigins);
        const src = (await widgetLoaderSrc(assets)) ?? WIDGET_BUNDLE_PATH;
        const snippet = `<script src="${src}" data-agent-id="${agentId}" async></script>`;
        const main = [
          `<h1>${TITLE}</h1>`,
          '<p class="lead">This page embeds the <strong>demo assistant</strong> of Northwind Coffee Roasters, a made-up shop, exactly the way a customer site would.</p>',
          '<h2>What to try</h2>',
          '<ol class="steps">',
          '<li>Open the chat button in the bottom corner of this page.</li>',
          `<li>Ask something the shop's sample knowledge covers, for example:<ul>${QUESTIONS.map((q) => `<li>“${escapeHtml(q)}”</li>`).join('')}</ul></li>`,
          '<li>Reload the page: the conversation is still there.</li>',
          '</ol>',
          '<h2>The snippet on this page</h2>',
          '<p>One script tag is all a site adds:</p>',
          `<div class="card"><pre><code>${escapeHtml(snippet)}</code></pre></div>`,
          '<p>Make your own agent, give it your documents or your site, and copy its snippet from the <a href="/admin/">console</a>.</p>',
        ].join('\n');
        return reply.send(page(main, [{ src, attributes: { 'data-agent-id': agentId } }]));
      },
    );
  };
}
