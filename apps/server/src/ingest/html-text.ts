import { compile } from 'html-to-text';

/**
 * The converter, compiled once: `convert(html, options)` would rebuild it (selectors, formatters)
 * on every call, which costs more than converting a typical post.
 */
const convert = compile({
  wordwrap: false,
  preserveNewlines: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'nav', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
      selector,
      options: { uppercase: false },
    })),
    { selector: 'table', format: 'dataTable' },
  ],
});

/** Readable text from HTML: scripts, styles, images and link targets dropped; paragraphs kept. */
export function htmlToText(html: string): string {
  if (html.trim() === '') return '';
  return convert(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
