// What the public KB pages show, as the knowledge service reads it (services/knowledge/kb-public.ts).

/** A workspace's public knowledge base as its pages show it. */
export type KbSite = {
  workspaceId: string;
  slug: string;
  /** The KB's title: its own, else "<workspace name> help centre". */
  title: string;
  workspaceName: string;
  logoUrl: string | null;
  color: string | null;
  /** The widget to embed: set and only while that agent is published. */
  widgetAgentId: string | null;
  /** That agent's allowed origins (the pages' policy lets their images in: product cards). */
  widgetOrigins: string[];
};

/** A published article in the KB's listings (no body). */
export type KbListedArticle = { title: string; slug: string; category: string; updatedAt: Date };

/** A published article with its markdown. */
export type KbArticleView = KbListedArticle & { bodyMarkdown: string; publishedAt: Date | null };
