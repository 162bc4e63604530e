import { z } from 'zod';
import { zText } from './text.js';

/** A knowledge-base article slug: lower-case letters, digits and single dashes. */
export const ZKbSlug = zText()

  .min(1)
  .max(120)
  .regex(
    /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
    'Must be lower-case letters, digits and dashes, such as getting-started.',
  );

/** Longest `body_markdown` of a knowledge-base article, in characters. */
export const KB_ARTICLE_BODY_MAX_CHARS = 500_000;

const kbWritable = {
  title: zText().trim().min(1).max(300),
  slug: ZKbSlug,
  body_markdown: zText().max(KB_ARTICLE_BODY_MAX_CHARS),
  /** The article's section on the public KB home; '' (the default) is the general section. */
  category: zText().trim().max(80),
  is_published: z.boolean(),
};

/**
 * Body of `POST /api/v1/admin/kb/articles`. Unknown fields are rejected; without `slug` one is
 * derived from the title.
 */
export const ZKbArticleCreate = z.strictObject({
  ...kbWritable,
  slug: kbWritable.slug.optional(),
  category: kbWritable.category.optional(),
  is_published: kbWritable.is_published.optional(),
});
export type TKbArticleCreate = z.infer<typeof ZKbArticleCreate>;

/** Body of `PATCH /api/v1/admin/kb/articles/{id}` (partial). */
export const ZKbArticleUpdate = z.strictObject(kbWritable).partial();
export type TKbArticleUpdate = z.infer<typeof ZKbArticleUpdate>;

/** A knowledge-base article as the admin API returns it. */
export const ZKbArticle = z.object({
  id: zText(),
  title: zText(),
  slug: zText(),
  body_markdown: zText(),
  category: zText(),
  is_published: z.boolean(),
  published_at: zText().nullable(),
  created_at: zText(),
  updated_at: zText(),
});
export type TKbArticle = z.infer<typeof ZKbArticle>;

/** Body of `POST /api/v1/admin/kb/preview`: markdown to render as a published article would be. */
export const ZKbPreview = z.strictObject({ markdown: zText().max(KB_ARTICLE_BODY_MAX_CHARS) });
export type TKbPreview = z.infer<typeof ZKbPreview>;

/** The answer of `POST /api/v1/admin/kb/preview`: the HTML the public page would show (sanitised). */
export const ZKbPreviewHtml = z.object({ html: zText() });
export type TKbPreviewHtml = z.infer<typeof ZKbPreviewHtml>;
