import type { TSiteTheme } from '@service/contract';
import { decodeHtml, type FetchPage, isHtmlContentType } from '../../crawl/fetch-page.js';
import { validationError } from '../../errors/app-error.js';
import { contrastRatio, readableOn, textOn } from '../widget/widget-theme.js';

/** Most of a home page read for its theme colour (the `<head>` comes first). */
const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** A CSS colour of `theme-color` as #rrggbb: hex (3, 4, 6 or 8 digits; alpha dropped) or rgb()/rgba(); else null. */
export function cssColorToHex(raw: string): string | null {
  const value = raw.trim().toLowerCase();
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(value)?.[1];
  if (hex) {
    const full = hex.length <= 4 ? hex.replace(/./g, '$&$&') : hex;
    return `#${full.slice(0, 6)}`;
  }
  const rgb = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})(?:\s*[,/]\s*[\d.]+%?)?\s*\)$/.exec(value);
  if (!rgb) return null;
  const channels = rgb.slice(1, 4).map(Number);
  if (channels.some((c) => c > 255)) return null;
  return `#${channels.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

// linkedom's typings rest on the DOM lib, which the server does not load: typed structurally.
type MetaDocument = {
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
};

/**
 * The page's theme colour: the `meta[name=theme-color]` without a media query (or for light
 * schemes) first. The DOM parser is loaded on first use (most instances never suggest a theme).
 */
export async function themeColorOf(html: string): Promise<string | null> {
  const { parseHTML } = await import('linkedom');
  const document: MetaDocument = parseHTML(html).document;
  const metas = Array.from(document.querySelectorAll('meta[name="theme-color" i]'));
  const rank = (media: string) => (media === '' ? 0 : /light/.test(media) ? 1 : /dark/.test(media) ? 3 : 2);
  const sorted = metas
    .map((meta) => ({
      media: (meta.getAttribute('media') ?? '').toLowerCase(),
      content: meta.getAttribute('content') ?? '',
    }))
    .sort((a, b) => rank(a.media) - rank(b.media));
  for (const meta of sorted) {
    const color = cssColorToHex(meta.content);
    if (color) return color;
  }
  return null;
}

/**
 * Reads a site's theme colour (`meta[name=theme-color]`) through the crawl-safety guard and
 * suggests a theme from it, contrast checked (WCAG AA): the colour as primary, the text colour
 * that reads on it, and the colour darkened as text on white when needed. Saves nothing.
 * A refused, failed or colourless page is a 422 on `url` with the reason.
 */
export async function suggestSiteTheme(options: { url: string; fetchPage: FetchPage }): Promise<TSiteTheme> {
  const fail = (reason: string) => validationError({ url: [reason] });
  const page = await options.fetchPage(options.url, { accept: isHtmlContentType, maxBytes: MAX_PAGE_BYTES });
  if (!page.ok) throw fail(`The page could not be read: ${page.reason}`);
  if (page.status >= 400) throw fail(`The page answered HTTP ${page.status}.`);
  const color = await themeColorOf(decodeHtml(page.body, page.contentType));
  if (!color) throw fail('The page has no usable <meta name="theme-color"> (a hex or rgb() colour).');
  const onPrimary = textOn(color);
  const primaryText = readableOn(color, '#ffffff');
  return {
    source_url: page.url,
    site_color: color,
    primary: color,
    on_primary: onPrimary,
    contrast: Math.round(contrastRatio(onPrimary, color) * 100) / 100,
    primary_text: primaryText,
    is_adjusted: primaryText !== color,
  };
}
