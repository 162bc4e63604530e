import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// The customer's site: a tiny node:http server on 127.0.0.1, reached as http://localhost:<port>
// so its origin differs from the service's (http://127.0.0.1:<port>). Each test registers the
// pages it needs; /hostile.css is always there.

/** One page of the host site: its HTML and extra response headers (e.g. a CSP). */
export type HostPage = { html: string; headers?: Record<string, string> };

/** The running host site. */
export type HostSite = {
  /** `http://localhost:<port>`: what the agents allow. */
  origin: string;
  /** Serves `page` at `path` (replacing the page there, if one); returns its URL. */
  serve(path: string, page: HostPage): string;
  close(): Promise<void>;
};

/** A stylesheet that tries to restyle everything on the page, the widget included. */
export const HOSTILE_CSS = `* { color: red !important; font-size: 40px !important }
div, button, textarea, span, p { background: lime !important; font-family: serif !important }
`;

/** Starts the host site on 127.0.0.1 with a random port. */
export async function startHostSite(): Promise<HostSite> {
  const pages = new Map<string, HostPage>();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host.invalid').pathname;
    if (path === '/hostile.css') {
      res.writeHead(200, { 'content-type': 'text/css; charset=utf-8' });
      res.end(HOSTILE_CSS);
      return;
    }
    const page = pages.get(path);
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...page.headers });
    res.end(page.html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address: AddressInfo | string | null = server.address();
  if (address === null || typeof address === 'string') throw new Error('the host site has no port');
  const origin = `http://localhost:${address.port}`;
  return {
    origin,
    serve(path, page) {
      pages.set(path, page);
      return `${origin}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a host page embeds. */
export type EmbedOptions = {
  /** The service origin the script is loaded from. */
  service: string;
  agentId: string;
  /** `data-locale` on the script tag. */
  dataLocale?: string;
  /** `<html lang>`; none when undefined. */
  lang?: string;
  /** Extra markup in <head> (e.g. a stylesheet link). */
  head?: string;
  /** Body text before the snippet. */
  body?: string;
};

/** A host page with the one-line embed snippet, as a customer would paste it. */
export function embedPage(options: EmbedOptions): string {
  const lang = options.lang === undefined ? '' : ` lang="${options.lang}"`;
  const locale = options.dataLocale === undefined ? '' : ` data-locale="${options.dataLocale}"`;
  return `<!doctype html>
<html${lang}>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host shop</title>${options.head ?? ''}</head>
<body>
<h1>Host shop</h1>
<p class="host-text">${options.body ?? 'Welcome to the shop.'}</p>
<script src="${options.service}/widget/widget.js?v=test" data-agent-id="${options.agentId}"${locale} async></script>
</body>
</html>
`;
}

/** A strict CSP that allows the service only for scripts and connections. */
export function strictCsp(service: string): string {
  return `default-src 'self'; script-src 'self' ${service}; connect-src ${service}; style-src 'self'`;
}
