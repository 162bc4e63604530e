import { kbArticlePath, kbHomePath } from './kb-paths.js';
import type { KbListedArticle } from './kb-types.js';

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => XML_ESCAPES[char] ?? char);
}

/** The KB's sitemap (sitemaps.org 0.9): the home and every published article with its last change. */
export function sitemapXml(
  baseUrl: string,
  workspaceSlug: string,
  articles: readonly KbListedArticle[],
): string {
  const url = (loc: string, lastmod?: Date) =>
    `<url><loc>${escapeXml(`${baseUrl}${loc}`)}</loc>${lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ''}</url>`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    url(kbHomePath(workspaceSlug)),
    ...articles.map((article) => url(kbArticlePath(workspaceSlug, article.slug), article.updatedAt)),
    '</urlset>',
    '',
  ].join('\n');
}
