/** Where the public knowledge base lives: `/kb/{workspace}` and `/kb/{workspace}/{article}`. */
export const KB_PATH = '/kb';

/** The public pages' shared stylesheet (KB and `/demo`), served by the service itself. */
export const KB_STYLESHEET_PATH = '/kb-assets/kb.css';

/** The KB home of a workspace. */
export function kbHomePath(workspaceSlug: string): string {
  return `${KB_PATH}/${encodeURIComponent(workspaceSlug)}`;
}

/** One article's page. */
export function kbArticlePath(workspaceSlug: string, articleSlug: string): string {
  return `${kbHomePath(workspaceSlug)}/${encodeURIComponent(articleSlug)}`;
}

/** The workspace's colour stylesheet (`?v=` carries the colour, so a change busts caches). */
export function kbThemePath(workspaceSlug: string, color: string): string {
  return `${kbHomePath(workspaceSlug)}/theme.css?v=${color.replace('#', '')}`;
}

/** The KB's sitemap (https://www.sitemaps.org/protocol.html). */
export function kbSitemapPath(workspaceSlug: string): string {
  return `${kbHomePath(workspaceSlug)}/sitemap.xml`;
}
