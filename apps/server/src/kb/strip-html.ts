import type Token from 'markdown-it/lib/token.mjs';

/**
 * Elements whose content a browser never shows as text (raw text, templates, fallbacks for
 * frames and scripting): stripping their tags drops their content too, so a `<script>`'s
 * body never appears as text on the page.
 */
const HIDDEN_CONTENT = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'noembed',
  'noframes',
  'textarea',
  'title',
  'xmp',
  'object',
]);

/**
 * Tags (attributes quoted either way, spanning lines), comments, CDATA, `<!…>`, `<?…>`. Sticky:
 * tried only where a `<` stands, once, so hostile input cannot make the scan quadratic.
 */
const MARKUP =
  /<!--(?:-?>|[\s\S]*?-->)|<!\[CDATA\[[\s\S]*?\]\]>|<[!?][^>]*>|<\/?([a-zA-Z][^\s/>]*)(?=[\s/>])(?:[^>"']|"[^"]*"|'[^']*')*>/y;

/** What may start markup after a `<`: a letter, `/`, `!` or `?`. */
const MARKUP_START = /[a-zA-Z/!?]/;

/** Removes every tag, comment and declaration in `html` once, and hidden elements with their content. */
function stripOnce(html: string): string {
  let out = '';
  let last = 0;
  for (let at = html.indexOf('<'); at !== -1; at = html.indexOf('<', at + 1)) {
    if (at < last) continue;
    if (!MARKUP_START.test(html.charAt(at + 1))) continue; // `a < b` is text
    MARKUP.lastIndex = at;
    const match = MARKUP.exec(html);
    // A tag start that does not parse (an unclosed quote, a missing `>`) hides what follows.
    if (!match) return out + html.slice(last, at);
    out += html.slice(last, at);
    last = at + match[0].length;
    const name = match[1]?.toLowerCase();
    const opens = name !== undefined && !match[0].startsWith('</') && !match[0].endsWith('/>');
    if (opens && HIDDEN_CONTENT.has(name)) {
      // Skip to the matching end tag; without one, the rest is the element's content.
      const end = new RegExp(`</${name}(?:[\\s/][^<>]*)?>`, 'i').exec(html.slice(last));
      if (!end) return out;
      last += end.index + end[0].length;
    }
    at = last - 1;
  }
  return out + html.slice(last);
}

/**
 * The text a raw HTML block may keep: every tag, comment, CDATA section, declaration and
 * processing instruction removed, hidden elements with their content, repeatedly (so
 * `<<b>script>` cannot reassemble a tag), character references decoded by `decode` and
 * stripped again (so `&lt;script&gt;` cannot either). The caller escapes the result.
 */
export function htmlText(html: string, decode: (value: string) => string): string {
  let value = html;
  for (let round = 0; round < 8; round += 1) {
    const next = decode(stripOnce(value));
    if (next === value) break;
    value = next;
  }
  return value.replace(/[<>]/g, '');
}

/** `html_inline` content: the lower-cased tag name and whether it opens, or null for comments and the like. */
function inlineTag(content: string): { name: string; opens: boolean } | null {
  const match = /^<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/.exec(content);
  if (!match) return null;
  return { name: (match[2] ?? '').toLowerCase(), opens: match[1] === '' && !content.endsWith('/>') };
}

/**
 * Drops the `html_inline` tokens from one inline token's children, keeping the text between
 * harmless tags (`<b>x</b>` → `x`) and dropping everything inside a hidden element (a
 * `<script>` up to its `</script>`, or to the end of the paragraph when it is not closed).
 */
export function dropInlineHtml(children: Token[]): Token[] {
  const kept: Token[] = [];
  let hidden: string | null = null;
  for (const token of children) {
    if (token.type === 'html_inline') {
      const tag = inlineTag(token.content);
      if (hidden === null && tag?.opens && HIDDEN_CONTENT.has(tag.name)) hidden = tag.name;
      else if (hidden !== null && tag && !tag.opens && tag.name === hidden) hidden = null;
      continue;
    }
    if (hidden === null) kept.push(token);
  }
  return joinText(kept);
}

/**
 * Joins the text tokens that a dropped tag separated. Each piece was text, not markup, so a
 * complete tag in the joined text was reassembled by the removal (`<<b>script>`) and goes too.
 */
function joinText(tokens: Token[]): Token[] {
  const out: Token[] = [];
  for (const token of tokens) {
    const previous = out.at(-1);
    if (token.type === 'text' && previous?.type === 'text') previous.content += token.content;
    else out.push(token);
  }
  for (const token of out) {
    const start = token.type === 'text' ? token.content.search(/<[a-zA-Z/!?]/) : -1;
    if (start !== -1 && token.content.indexOf('>', start) !== -1) {
      token.content = htmlText(token.content, (value) => value);
    }
  }
  return out;
}
