import { KB_PATH, kbArticlePath, kbHomePath, kbSitemapPath, kbThemePath } from './kb-paths.js';
import type { KbArticleView, KbListedArticle, KbSite } from './kb-types.js';
import { documentHtml, escapeHtml, type PageMeta } from './page-layout.js';
import { markdownPlainText, shorten } from './plain-text.js';

export { escapeHtml } from './page-layout.js';
export { KB_PATH };

/** The heading of the section of uncategorised articles (when other sections exist). */
const GENERAL_SECTION = 'More articles';
const DESCRIPTION_MAX = 160;

/** What every page of one KB needs besides its own content. */
export type KbPageContext = {
  site: KbSite;
  /** The service's public origin (`https://help.example.com`), for canonical and Open Graph URLs. */
  baseUrl: string;
  /** The widget loader's address (`/widget/widget.js?v=…`), or `null` when it is not built. */
  widgetSrc: string | null;
};

function siteMeta(context: KbPageContext, meta: PageMeta): PageMeta {
  const { site, baseUrl, widgetSrc } = context;
  const logo = site.logoUrl;
  return {
    siteName: site.title,
    imageUrl: logo === null ? null : logo.startsWith('/') ? `${baseUrl}${logo}` : logo,
    stylesheets: site.color ? [kbThemePath(site.slug, site.color)] : [],
    scripts:
      site.widgetAgentId && widgetSrc
        ? [{ src: widgetSrc, attributes: { 'data-agent-id': site.widgetAgentId } }]
        : [],
    ...meta,
  };
}

/** Header (logo, title, search box), main, footer: the frame of every KB page. */
function frame(site: KbSite, main: string, query = ''): string {
  const home = kbHomePath(site.slug);
  const logo = site.logoUrl ? `<img src="${escapeHtml(site.logoUrl)}" alt="">` : '';
  return [
    '<header class="site-header"><div class="wrap">',
    `<a class="brand" href="${home}">${logo}<span>${escapeHtml(site.title)}</span></a>`,
    `<form class="search" role="search" method="get" action="${home}">`,
    '<label class="visually-hidden" for="kb-q">Search articles</label>',
    `<input id="kb-q" name="q" type="search" maxlength="200" placeholder="Search articles" value="${escapeHtml(query)}">`,
    '<button type="submit">Search</button>',
    '</form>',
    '</div></header>',
    `<main id="main" class="wrap">\n${main}\n</main>`,
    '<footer class="site-footer"><div class="wrap">',
    `<span>${escapeHtml(site.workspaceName)}</span>`,
    `<a href="${home}">All articles</a>`,
    `<a href="${kbSitemapPath(site.slug)}">Sitemap</a>`,
    '</div></footer>',
  ].join('\n');
}

function articleLink(site: KbSite, article: KbListedArticle): string {
  return `<a href="${kbArticlePath(site.slug, article.slug)}">${escapeHtml(article.title)}</a>`;
}

/** Articles grouped by category, in reading order (the list is already sorted). */
function sectionsOf(articles: readonly KbListedArticle[]): Array<[string, KbListedArticle[]]> {
  const sections = new Map<string, KbListedArticle[]>();
  for (const article of articles) {
    const list = sections.get(article.category) ?? [];
    list.push(article);
    sections.set(article.category, list);
  }
  const hasNamed = [...sections.keys()].some((name) => name !== '');
  return [...sections.entries()].map(([name, list]) => [
    name || (hasNamed ? GENERAL_SECTION : 'Articles'),
    list,
  ]);
}

/** The KB home: every published article, a section per category. */
export function homePage(context: KbPageContext, articles: readonly KbListedArticle[]): string {
  const { site, baseUrl } = context;
  const sections = sectionsOf(articles)
    .map(([name, list], index) =>
      [
        `<section class="section" aria-labelledby="section-${index}">`,
        `<h2 id="section-${index}">${escapeHtml(name)}</h2>`,
        `<ul>\n${list.map((article) => `<li>${articleLink(site, article)}</li>`).join('\n')}\n</ul>`,
        '</section>',
      ].join('\n'),
    )
    .join('\n');
  const main = [
    `<h1>${escapeHtml(site.title)}</h1>`,
    `<p class="lead">Answers and guides from ${escapeHtml(site.workspaceName)}. Search above or browse by topic.</p>`,
    articles.length > 0
      ? `<div class="sections">\n${sections}\n</div>`
      : '<p class="empty">No articles have been published yet.</p>',
  ].join('\n');
  return documentHtml(
    siteMeta(context, {
      title: site.title,
      description: `Help articles and answers from ${site.workspaceName}.`,
      canonicalUrl: `${baseUrl}${kbHomePath(site.slug)}`,
    }),
    frame(site, main),
  );
}

/**
 * A word of the query as a prefix to look for in text: common English endings dropped, so
 * "shipped" marks "ship" and "shipping" as the full-text search matched them (a doubled final
 * consonant is undoubled: shipp → ship).
 */
function stemOf(word: string): string {
  const stem = word.replace(/(?:ing|ed|es|s)$/u, '').replace(/([b-df-hj-np-tv-z])\1$/u, '$1');
  return stem.length >= 3 ? stem : word;
}

/** Where the first query word appears in `text`, with context either side, matching words marked. */
function snippet(text: string, query: string): string {
  const stems = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1)
    .map(stemOf);
  // Stems hold letters and digits only, so they need no escaping in a pattern or in HTML; never
  // inside a character reference (`&amp;`, `&#39;`) of the escaped text.
  const pattern =
    stems.length > 0 ? new RegExp(`(?<![\\p{L}\\p{N}&#])(?:${stems.join('|')})[\\p{L}\\p{N}]*`, 'giu') : null;
  const at = pattern ? text.search(pattern) : 0;
  const start = Math.max(0, at - 60);
  let part = shorten(text.slice(start), DESCRIPTION_MAX);
  if (start > 0) part = `…${part.replace(/^\S*\s/, '')}`;
  const html = escapeHtml(part);
  return pattern ? html.replace(pattern, (match) => `<mark>${match}</mark>`) : html;
}

/** Search results for `query` on the KB home's address (`?q=`): not indexed. */
export function searchPage(context: KbPageContext, query: string, results: readonly KbArticleView[]): string {
  const { site } = context;
  const list = results
    .map((article) =>
      [
        '<li>',
        `<h2>${articleLink(site, article)}</h2>`,
        `<p>${snippet(markdownPlainText(article.bodyMarkdown), query)}</p>`,
        '</li>',
      ].join(''),
    )
    .join('\n');
  const count = results.length === 1 ? '1 article' : `${results.length} articles`;
  const main = [
    breadcrumbs(site, [], 'Search'),
    `<h1>Search results for “${escapeHtml(query)}”</h1>`,
    results.length > 0
      ? `<p class="meta" role="status">${count} found.</p>\n<ul class="results">\n${list}\n</ul>`
      : `<p class="empty" role="status">No article matches. Try other words, or <a href="${kbHomePath(site.slug)}">browse all articles</a>.</p>`,
  ].join('\n');
  return documentHtml(
    siteMeta(context, {
      title: `Search: ${query} · ${site.title}`,
      description: `Search results for ${query}.`,
      noIndex: true,
    }),
    frame(site, main, query),
  );
}

/** The trail home → (category) → current page. */
function breadcrumbs(site: KbSite, middle: readonly string[], current: string): string {
  const items = [
    `<li><a href="${kbHomePath(site.slug)}">${escapeHtml(site.title)}</a></li>`,
    ...middle.map((name) => `<li>${escapeHtml(name)}</li>`),
    `<li><span aria-current="page">${escapeHtml(current)}</span></li>`,
  ];
  return `<nav class="breadcrumbs" aria-label="Breadcrumb"><ol>\n${items.join('\n')}\n</ol></nav>`;
}

/** An article: breadcrumbs, the sanitised body (`bodyHtml` from `renderMarkdown`), previous/next. */
export function articlePage(
  context: KbPageContext,
  article: KbArticleView,
  bodyHtml: string,
  neighbours: { previous: KbListedArticle | null; next: KbListedArticle | null },
): string {
  const { site, baseUrl } = context;
  const pager: string[] = [];
  if (neighbours.previous) {
    pager.push(
      `<a class="previous" rel="prev" href="${kbArticlePath(site.slug, neighbours.previous.slug)}"><small>Previous</small><span>${escapeHtml(neighbours.previous.title)}</span></a>`,
    );
  }
  if (neighbours.next) {
    pager.push(
      `<a class="next" rel="next" href="${kbArticlePath(site.slug, neighbours.next.slug)}"><small>Next</small><span>${escapeHtml(neighbours.next.title)}</span></a>`,
    );
  }
  const updated = article.updatedAt.toISOString().slice(0, 10);
  const main = [
    breadcrumbs(site, article.category ? [article.category] : [], article.title),
    '<article class="article">',
    `<h1>${escapeHtml(article.title)}</h1>`,
    `<p class="meta">Updated <time datetime="${updated}">${updated}</time></p>`,
    bodyHtml,
    '</article>',
    pager.length > 0 ? `<nav class="pager" aria-label="More articles">\n${pager.join('\n')}\n</nav>` : '',
  ].join('\n');
  const description = shorten(markdownPlainText(article.bodyMarkdown), DESCRIPTION_MAX) || article.title;
  return documentHtml(
    siteMeta(context, {
      title: `${article.title} · ${site.title}`,
      description,
      canonicalUrl: `${baseUrl}${kbArticlePath(site.slug, article.slug)}`,
      type: 'article',
    }),
    frame(site, main),
  );
}

/** The one not-found page: an unknown workspace, an unknown and an unpublished article look the same. */
export function notFoundPage(): string {
  return documentHtml(
    { title: 'Not found', description: 'There is no such page.', noIndex: true },
    '<main id="main" class="wrap">\n<h1>Not found</h1>\n<p>There is no such page. It may have been moved or unpublished.</p>\n</main>',
  );
}
