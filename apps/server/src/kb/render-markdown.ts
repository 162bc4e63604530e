import MarkdownIt from 'markdown-it';
import { dropInlineHtml, htmlText } from './strip-html.js';

/** Schemes a link may use; anything else with a scheme is refused. */
const LINK_SCHEMES = new Set(['http', 'https', 'mailto']);
/** Schemes an image source may use (no relative, no data:). */
const IMAGE_SCHEMES = new Set(['http', 'https']);
const LINK_REL = 'nofollow noopener noreferrer';

const NAMED_ENTITIES: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  sol: '/',
  num: '#',
  quest: '?',
  amp: '&',
  lpar: '(',
  rpar: ')',
  period: '.',
};

/** Decodes numeric and the few named character references that can spell a scheme. */
function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);?/gi, (match, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? match;
  });
}

/** Percent-decodes what can be decoded (invalid sequences are left as they are). */
function decodePercent(value: string): string {
  return value.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * The scheme a browser could see in `url`, lower-cased, after undoing every encoding layer
 * (entities, percent-encoding, repeatedly) and removing whitespace, control and invisible
 * characters (browsers drop tabs and newlines inside a scheme). `null` for a relative or
 * fragment URL; `''` when a colon comes first but no valid scheme precedes it.
 */
export function effectiveScheme(url: string): string | null {
  let value = url;
  for (let round = 0; round < 5; round += 1) {
    const next = decodePercent(decodeEntities(value));
    if (next === value) break;
    value = next;
  }
  // C0/C1 controls, all Unicode whitespace, zero-width and bidi marks, BOM, soft hyphen.
  const cleaned = value
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff]/g,
      '',
    )
    .toLowerCase();
  const colon = cleaned.indexOf(':');
  if (colon === -1) return null;
  const firstDelimiter = cleaned.search(/[/?#\\]/);
  // `path/with:colon`, `?q=a:b` and `#a:b` are relative; the colon is not a scheme separator.
  if (firstDelimiter !== -1 && firstDelimiter < colon) return null;
  const scheme = cleaned.slice(0, colon);
  return /^[a-z][a-z0-9+.-]*$/.test(scheme) ? scheme : '';
}

/** True for http(s), mailto and relative/fragment links; everything else is refused. */
export function isSafeLink(url: string): boolean {
  const scheme = effectiveScheme(url);
  return scheme === null || LINK_SCHEMES.has(scheme);
}

/** True only for absolute http(s) image sources. */
export function isSafeImageSource(url: string): boolean {
  const scheme = effectiveScheme(url);
  return scheme !== null && IMAGE_SCHEMES.has(scheme);
}

function createRenderer(): MarkdownIt {
  // html:true so raw HTML is parsed into html_block/html_inline tokens and can be stripped;
  // html:false would escape it into visible tag text instead.
  const md = new MarkdownIt('default', { html: true, linkify: true, typographer: false });
  md.validateLink = isSafeLink;

  // Raw HTML is stripped: inline tags go (the text between harmless ones stays), a block keeps
  // only its visible text, and a hidden element (<script>, <style>, …) goes with its content.
  md.core.ruler.push('strip_raw_html', (state) => {
    state.tokens.forEach((token, index) => {
      if (token.type === 'html_block') token.content = htmlText(token.content, md.utils.unescapeAll);
      if (token.type !== 'inline' || !token.children) return;
      token.children = dropInlineHtml(token.children);
      // A paragraph that held only raw HTML leaves no empty <p></p> behind.
      const isEmpty = token.children.every((child) => child.type === 'text' && child.content.trim() === '');
      const open = state.tokens[index - 1];
      const close = state.tokens[index + 1];
      if (isEmpty && open?.type === 'paragraph_open' && close?.type === 'paragraph_close') {
        open.hidden = true;
        close.hidden = true;
        token.children = [];
      }
    });
  });
  md.renderer.rules.html_inline = () => '';
  md.renderer.rules.html_block = (tokens, idx) => {
    const text = (tokens[idx]?.content ?? '').trim();
    return text === '' ? '' : `<p>${md.utils.escapeHtml(text)}</p>\n`;
  };

  const renderLinkOpen = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    if (token) {
      const href = token.attrGet('href');
      // validateLink already ran; this is the second line of defence.
      if (href !== null && !isSafeLink(href)) token.attrSet('href', '#');
      token.attrSet('rel', LINK_REL);
    }
    return renderLinkOpen
      ? renderLinkOpen(tokens, idx, options, env, self)
      : self.renderToken(tokens, idx, options);
  };

  const renderImage = md.renderer.rules.image;
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx];
    if (!token) return '';
    const src = token.attrGet('src');
    if (src === null || !isSafeImageSource(src)) {
      // Only the alt text survives a refused image.
      return md.utils.escapeHtml(self.renderInlineAsText(token.children ?? [], options, env));
    }
    token.attrSet('referrerpolicy', 'no-referrer');
    token.attrSet('loading', 'lazy');
    return renderImage
      ? renderImage(tokens, idx, options, env, self)
      : self.renderToken(tokens, idx, options);
  };
  return md;
}

const renderer = createRenderer();

/**
 * Renders knowledge-base markdown to HTML that is safe to serve: raw HTML tags are stripped
 * (kb/strip-html.ts; a `<script>`'s or `<style>`'s content goes too, other text stays); links are limited to http(s), mailto and relative/fragment targets and carry
 * `rel="nofollow noopener noreferrer"`; images must have an absolute http(s) source.
 */
export function renderMarkdown(markdown: string): string {
  return renderer.render(markdown);
}
