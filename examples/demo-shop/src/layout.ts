// The frame every page shares: header, navigation, footer and the widget's script tag.
import { html, type SafeHtml } from './html.js';

/** The widget tag's inputs. `shopperToken` only ever comes from a logged-in, uncached response. */
export type WidgetEmbed = { serviceUrl: string; agentId: string; shopperToken: string | null };

/** Who is looking at the page, for the navigation. */
export type Viewer = { name: string } | null;

/** The widget's loader tag, or nothing when no agent is known yet (before the first handshake). */
export function widgetTag(embed: WidgetEmbed): SafeHtml {
  if (embed.agentId === '') return html``;
  const src = `${embed.serviceUrl.replace(/\/+$/, '')}/widget/widget.js`;
  // The token is a per-customer credential: only logged-in pages, sent `private, no-store`,
  // may carry it. A page a cache can store (anonymous pages) must never include one.
  return embed.shopperToken === null
    ? html`<script src="${src}" data-agent-id="${embed.agentId}" async></script>`
    : html`<script src="${src}" data-agent-id="${embed.agentId}" data-shopper-token="${embed.shopperToken}" async></script>`;
}

/** A complete HTML document around `body`. */
export function renderLayout(page: {
  title: string;
  viewer: Viewer;
  embed: WidgetEmbed;
  body: SafeHtml;
}): string {
  const account = page.viewer
    ? html`<a href="/account/orders">My orders</a>
        <form method="post" action="/logout" class="inline"><button type="submit" class="link">Log out (${page.viewer.name})</button></form>`
    : html`<a href="/login">Log in</a>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Northwind Coffee Roasters</title>
<link rel="stylesheet" href="/assets/shop.css">
<link rel="icon" href="data:,">
</head>
<body>
<header class="site">
  <a class="brand" href="/">Northwind Coffee Roasters</a>
  <nav><a href="/">Coffee</a> <a href="/blog">Blog</a> <a href="/cart">Cart</a> ${account}</nav>
</header>
<main>
${page.body}
</main>
<footer class="site">
  <p>Northwind Coffee Roasters, Lyon · a demo shop: the coffees, customers and orders are made up.</p>
</footer>
${widgetTag(page.embed)}
</body>
</html>
`.value;
}
