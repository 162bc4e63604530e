import { renderMarkdown } from './render-markdown.js';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/**
 * The visible text of an article's markdown, whitespace collapsed: rendered by the sanitiser,
 * then its tags dropped (its output escapes every `<` of text, so each `<` opens a tag).
 */
export function markdownPlainText(markdown: string): string {
  return (
    renderMarkdown(markdown)
      // A block's edge separates words; an inline tag (`<strong>`, `<a>`) sits inside a word's run.
      .replace(/<\/?(?:p|h[1-6]|li|ul|ol|pre|blockquote|table|thead|tbody|tr|td|th|br|hr)\b[^>]*>/g, ' ')
      .replace(/<[^>]*>/g, '')
      .replace(/&(amp|lt|gt|quot|#39);/g, (_match, name: string) => ENTITIES[name] ?? '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/** At most `max` characters of `text`, cut at a word boundary with an ellipsis when shortened. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
