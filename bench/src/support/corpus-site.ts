/**
 * A directory of HTML served read-only on 127.0.0.1 with a generated `/sitemap.xml` of every
 * `.html` page (sub-folders included), as the golden set's black-box runner serves the SQLite
 * manual: no directory listings, no path escapes, 404 for everything else (robots.txt too).
 */
import { createReadStream, readdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

/** A running corpus site: its base URL (no trailing slash), its pages, and how many were served. */
export type CorpusSite = {
  baseUrl: string;
  port: number;
  pages: string[];
  served: { pages: number; sitemap: number; notFound: number };
  close(): Promise<void>;
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.gif': 'image/gif',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** Every `.html` file under `root`, as sorted paths relative to it with `/` separators. */
export function listHtmlPages(root: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listHtmlPages(root, rel));
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.html')) out.push(rel);
  }
  return out.sort();
}

const xmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Serves `root` on a free loopback port (or `port`). */
export async function startCorpusSite(root: string, port = 0): Promise<CorpusSite> {
  const dir = resolve(root);
  const pages = listHtmlPages(dir);
  const served = { pages: 0, sitemap: 0, notFound: 0 };
  let sitemap = '';
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let rel: string;
    try {
      rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (rel === 'sitemap.xml') {
      served.sitemap += 1;
      res.writeHead(200, { 'content-type': 'application/xml; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : sitemap);
      return;
    }
    if (rel === '') rel = 'index.html';
    const file = resolve(dir, rel);
    const type = TYPES[extname(file).toLowerCase()];
    const inside = file.startsWith(dir + sep) && !rel.split('/').includes('..');
    let size = -1;
    try {
      const stat = inside && type ? statSync(file) : null;
      if (stat?.isFile()) size = stat.size;
    } catch {
      size = -1;
    }
    if (size < 0 || !type) {
      served.notFound += 1;
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    if (file.endsWith('.html')) served.pages += 1;
    res.writeHead(200, { 'content-type': type, 'content-length': size });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  const baseUrl = `http://127.0.0.1:${address.port}`;
  const urls = pages.map((page) => `${baseUrl}/${page.split('/').map(encodeURIComponent).join('/')}`);
  sitemap =
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' +
    urls.map((url) => `<url><loc>${xmlEscape(url)}</loc></url>`).join('\n') +
    '\n</urlset>\n';
  return {
    baseUrl,
    port: address.port,
    pages,
    served,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
