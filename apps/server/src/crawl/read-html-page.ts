import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlToText } from '../ingest/html-text.js';
import { normalizeUrl, originOf } from './crawl-url.js';
import { CRAWLER_TOKEN } from './robots.js';

export { robotsHeaderDirectives } from './robots.js';

/** What the crawler needs from one HTML page. */
export type HtmlPage = {
  title: string;
  text: string;
  /** The `<link rel=canonical>` target in normal form, when it is on the page's own origin. */
  canonicalUrl: string | null;
  /** Followable links: absolute http(s), normal form, de-duplicated, `rel=nofollow` ones left out. */
  links: string[];
  lang: string | null;
  noindex: boolean;
  nofollow: boolean;
};

/** Above this many characters Readability (super-linear on big DOMs) is skipped for the plain fallback. */
export const READABILITY_MAX_HTML_CHARS = 2 * 1024 * 1024;
/** Readability's article must have at least this much text, or the fallback is used. */
export const READABILITY_MIN_TEXT_CHARS = 200;

// Page furniture, never content: dropped by the fallback extraction.
const BOILERPLATE = [
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'iframe',
  'svg',
  'dialog',
  '[hidden]',
  '[aria-hidden="true"]',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="dialog"]',
  '[role="alertdialog"]',
].join(',');

// The few DOM members used here. linkedom's typings rest on the DOM lib, which the server does not
// load, so its objects are typed structurally at the boundary instead of with casts.
type DomElement = {
  getAttribute(name: string): string | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  remove(): void;
  readonly textContent: string | null;
  readonly innerHTML: string;
};
type DomDocument = {
  readonly documentElement: DomElement | null;
  readonly body: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
  cloneNode(deep: boolean): unknown;
};

/**
 * Reads an HTML page fetched from `url`: title, main text (Readability's article when it finds
 * one, else the body without navigation and other furniture), same-origin canonical URL, links,
 * `<html lang>`, and the noindex/nofollow robots directives of `<meta name=robots>` (or of the
 * crawler's own token).
 */
export function readHtmlPage(html: string, url: string): HtmlPage {
  // linkedom builds a broken tree from a fragment without <html>; give it a document.
  const source = /<html[\s>]/i.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const document: DomDocument = parseHTML(source).document;
  const base = baseUrl(document, url);
  const directives = robotsDirectives(document);
  // Links and title first: the fallback extraction removes the navigation they may live in.
  const links = linksOf(document, base);
  const title = pageTitle(document);
  const article = html.length <= READABILITY_MAX_HTML_CHARS ? readArticle(document) : null;
  return {
    title: clean(article?.title ?? '') || title,
    text: article?.text ?? fallbackText(document),
    canonicalUrl: canonicalOf(document, base, url),
    links,
    lang: clean(document.documentElement?.getAttribute('lang') ?? '') || null,
    noindex: directives.has('noindex') || directives.has('none'),
    nofollow: directives.has('nofollow') || directives.has('none'),
  };
}

function robotsDirectives(document: DomDocument): Set<string> {
  const result = new Set<string>();
  const names = new Set(['robots', CRAWLER_TOKEN.toLowerCase()]);
  for (const meta of document.querySelectorAll('meta[name][content]')) {
    if (!names.has((meta.getAttribute('name') ?? '').trim().toLowerCase())) continue;
    for (const part of (meta.getAttribute('content') ?? '').toLowerCase().split(',')) {
      if (part.trim() !== '') result.add(part.trim());
    }
  }
  return result;
}

/** `<base href>` resolved against the page URL (http(s) only), else the page URL. */
function baseUrl(document: DomDocument, url: string): string {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  return (href !== undefined && href !== null && normalizeUrl(href, url)) || url;
}

function linksOf(document: DomDocument, base: string): string[] {
  const links = new Set<string>();
  for (const anchor of document.querySelectorAll('a[href]')) {
    if (relTokens(anchor).has('nofollow')) continue;
    const link = normalizeUrl(anchor.getAttribute('href') ?? '', base);
    if (link !== null) links.add(link);
  }
  return [...links];
}

/** The canonical URL when it parses and stays on the page's origin; another origin's is ignored. */
function canonicalOf(document: DomDocument, base: string, url: string): string | null {
  for (const link of document.querySelectorAll('link[rel][href]')) {
    if (!relTokens(link).has('canonical')) continue;
    const canonical = normalizeUrl(link.getAttribute('href') ?? '', base);
    return canonical !== null && originOf(canonical) === originOf(url) ? canonical : null;
  }
  return null;
}

function relTokens(element: DomElement): Set<string> {
  return new Set((element.getAttribute('rel') ?? '').toLowerCase().split(/\s+/));
}

// What Readability's constructor takes: the DOM lib's `Document` where that lib is loaded (the
// widget's browser tests compile this file with it), an unresolved name (so, unchecked) where not.
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];

function readabilityDocument(clone: unknown): ReadabilityDocument {
  // The one conversion at this boundary: linkedom's document implements the DOM members
  // Readability uses, but is not typed as the DOM lib's `Document`.
  return clone as ReadabilityDocument;
}

/** Readability's article, on a clone (it rewrites the tree); null when it finds too little text. */
function readArticle(document: DomDocument): { title: string; text: string } | null {
  try {
    // maxElemsToParse bounds the work on a huge DOM: Readability throws past it.
    const article = new Readability(readabilityDocument(document.cloneNode(true)), {
      maxElemsToParse: 20_000,
    }).parse();
    const length = article?.textContent?.trim().length ?? 0;
    if (!article || length < READABILITY_MIN_TEXT_CHARS || typeof article.content !== 'string') return null;
    const text = htmlToText(article.content);
    return text === '' ? null : { title: article.title ?? '', text };
  } catch {
    return null;
  }
}

/** The main element's (or the body's) text with navigation, forms, scripts and hidden parts dropped. */
function fallbackText(document: DomDocument): string {
  for (const element of [...document.querySelectorAll(BOILERPLATE)]) element.remove();
  const main = document.querySelector('main, [role="main"]');
  const root = main !== null && (main.textContent ?? '').trim() !== '' ? main : document.body;
  return root === null ? '' : htmlToText(root.innerHTML);
}

/** `<title>`, else the first `<h1>`; '' when neither has text. */
function pageTitle(document: DomDocument): string {
  return (
    clean(document.querySelector('title')?.textContent ?? '') ||
    clean(document.querySelector('h1')?.textContent ?? '')
  );
}

function clean(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}
