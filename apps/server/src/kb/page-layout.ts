import { KB_STYLESHEET_PATH } from './kb-paths.js';
import { KB_CSS_HASH } from './kb-style.js';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** What a page's `<head>` says about it: title, description, canonical address, Open Graph. */
export type PageMeta = {
  title: string;
  description: string;
  /** Absolute address of the page; also `og:url`. Absent on pages not to be indexed. */
  canonicalUrl?: string;
  /** `og:type`. */
  type?: 'website' | 'article';
  siteName?: string;
  /** Absolute image address for `og:image` (the KB's logo). */
  imageUrl?: string | null;
  /** Extra stylesheets after the shared one (the workspace colour). */
  stylesheets?: readonly string[];
  /** Scripts from the service's own origin, with their attributes (the widget loader). */
  scripts?: ReadonlyArray<{ src: string; attributes: Record<string, string> }>;
  /** `noindex` for search results and error pages. */
  noIndex?: boolean;
};

function metaTag(attribute: 'name' | 'property', key: string, content: string): string {
  return `<meta ${attribute}="${key}" content="${escapeHtml(content)}">`;
}

/**
 * A full HTML document for the public pages: every interpolated text is escaped, the only
 * stylesheet and scripts come from the service's own origin (no inline script or style, so a
 * policy without `unsafe-inline` holds).
 */
export function documentHtml(meta: PageMeta, body: string): string {
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="strict-origin-when-cross-origin">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${escapeHtml(meta.title)}</title>`,
    metaTag('name', 'description', meta.description),
  ];
  if (meta.noIndex) head.push('<meta name="robots" content="noindex">');
  if (meta.canonicalUrl) head.push(`<link rel="canonical" href="${escapeHtml(meta.canonicalUrl)}">`);
  head.push(
    metaTag('property', 'og:type', meta.type ?? 'website'),
    metaTag('property', 'og:title', meta.title),
    metaTag('property', 'og:description', meta.description),
  );
  if (meta.siteName) head.push(metaTag('property', 'og:site_name', meta.siteName));
  if (meta.canonicalUrl) head.push(metaTag('property', 'og:url', meta.canonicalUrl));
  if (meta.imageUrl) head.push(metaTag('property', 'og:image', meta.imageUrl));
  head.push(metaTag('name', 'twitter:card', 'summary'));
  for (const href of [`${KB_STYLESHEET_PATH}?v=${KB_CSS_HASH}`, ...(meta.stylesheets ?? [])]) {
    head.push(`<link rel="stylesheet" href="${escapeHtml(href)}">`);
  }
  const scripts = (meta.scripts ?? []).map((script) => {
    const attributes = Object.entries(script.attributes)
      .map(([name, value]) => ` ${name}="${escapeHtml(value)}"`)
      .join('');
    return `<script src="${escapeHtml(script.src)}"${attributes} async></script>`;
  });
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    ...head,
    '</head>',
    // With the widget, the page ends with room for its launcher (it would cover the last links).
    scripts.length > 0 ? '<body class="has-widget">' : '<body>',
    '<a class="skip" href="#main">Skip to content</a>',
    body,
    ...scripts,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
