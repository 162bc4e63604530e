/** The kind of markup a text upload was sniffed as. */
export type MarkupKind = 'HTML' | 'SVG' | 'XML';

/**
 * Tag names that make a browser sniff a resource as HTML (WHATWG MIME Sniffing §7.1,
 * "identifying a resource with an unknown MIME type"), plus a few more that are just as
 * dangerous when rendered.
 */
const HTML_TAGS = new Set([
  'html',
  'head',
  'body',
  'script',
  'iframe',
  'h1',
  'div',
  'font',
  'table',
  'a',
  'style',
  'title',
  'b',
  'br',
  'p',
  'meta',
  'link',
  'base',
  'object',
  'embed',
  'form',
  'img',
  'frameset',
  'frame',
  'math',
]);

/** How far into an `<?xml` document we look for an `<svg` or `<html` root. */
const XML_ROOT_SCAN_CHARS = 64 * 1024;

/** WHATWG whitespace bytes skipped before the first tag: TAB, LF, FF, CR, SPACE. */
function isSniffWhitespace(char: string): boolean {
  return char === '\t' || char === '\n' || char === '\f' || char === '\r' || char === ' ';
}

/**
 * Returns the markup kind when `text` starts (after a BOM, whitespace and `<!-- -->`
 * comments) like an HTML, SVG or XML document, else undefined. Deliberately stricter than
 * the browser's sniffer: every leading `<tag`, `<!…` or `<?…` counts, so a Markdown file
 * that opens with raw HTML is refused too (fail closed).
 */
export function sniffMarkup(text: string): MarkupKind | undefined {
  let index = text.startsWith('\uFEFF') ? 1 : 0;
  for (;;) {
    while (index < text.length && isSniffWhitespace(text.charAt(index))) index += 1;
    if (!text.startsWith('<!--', index)) break;
    const end = text.indexOf('-->', index + 4);
    // An unterminated or trailing comment is still what a browser sniffs as HTML.
    if (end === -1) return 'HTML';
    index = end + 3;
    if (index >= text.length) return 'HTML';
  }
  const head = text.slice(index, index + 256).toLowerCase();
  if (head.startsWith('<?xml')) {
    const body = text.slice(index, index + XML_ROOT_SCAN_CHARS).toLowerCase();
    if (/<svg[\s>/]/.test(body)) return 'SVG';
    if (/<html[\s>/]/.test(body)) return 'HTML';
    return 'XML';
  }
  if (/^<!doctype\s+html/.test(head)) return 'HTML';
  if (/^<!doctype\s+svg/.test(head)) return 'SVG';
  if (head.startsWith('<!') || head.startsWith('<?')) return 'XML';
  const tag = /^<([a-z][a-z0-9:-]*)(?:[\s>/]|$)/.exec(head)?.[1];
  if (tag === undefined) return undefined;
  if (tag === 'svg') return 'SVG';
  return HTML_TAGS.has(tag) ? 'HTML' : 'XML';
}
