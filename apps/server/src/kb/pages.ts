/** Where the public knowledge base lives: `/kb/{workspace}` and `/kb/{workspace}/{article}`. */
export const KB_PATH = '/kb';

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

/**
 * Full HTML documents for the public knowledge base: every interpolated text is escaped,
 * there are no scripts and no external resources (no styles either).
 */
function documentHtml(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="strict-origin-when-cross-origin">',
    `<title>${escapeHtml(title)}</title>`,
    '</head>',
    '<body>',
    body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** The index page: the workspace's published articles, linked by slug. */
export function indexPage(
  workspaceSlug: string,
  workspaceName: string,
  articles: ReadonlyArray<{ title: string; slug: string }>,
): string {
  const items = articles
    .map(
      (article) =>
        `<li><a href="${KB_PATH}/${encodeURIComponent(workspaceSlug)}/${encodeURIComponent(article.slug)}">${escapeHtml(article.title)}</a></li>`,
    )
    .join('\n');
  const list = articles.length > 0 ? `<ul>\n${items}\n</ul>` : '<p>No articles yet.</p>';
  return documentHtml(
    `${workspaceName} knowledge base`,
    `<main>\n<h1>${escapeHtml(workspaceName)} knowledge base</h1>\n${list}\n</main>`,
  );
}

/** An article page; `bodyHtml` is the output of `renderMarkdown`. */
export function articlePage(
  workspaceSlug: string,
  workspaceName: string,
  title: string,
  bodyHtml: string,
): string {
  return documentHtml(
    `${title} · ${workspaceName}`,
    [
      '<main>',
      `<nav><a href="${KB_PATH}/${encodeURIComponent(workspaceSlug)}">${escapeHtml(workspaceName)} knowledge base</a></nav>`,
      '<article>',
      `<h1>${escapeHtml(title)}</h1>`,
      bodyHtml,
      '</article>',
      '</main>',
    ].join('\n'),
  );
}

/** The one not-found page: an unknown workspace, an unknown and an unpublished article look the same. */
export function notFoundPage(): string {
  return documentHtml('Not found', '<main>\n<h1>Not found</h1>\n<p>There is no such page.</p>\n</main>');
}
