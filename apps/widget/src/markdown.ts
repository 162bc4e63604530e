// A deliberately small markdown renderer for answers. Model text is untrusted: output is
// built from DOM nodes and textContent only, raw HTML stays literal text, images render as
// their alt text, and links survive only with an http, https, mailto or tel scheme.
import type { TCitation } from './types.js';

/** What the renderer needs besides the text. */
export type TMarkdownOptions = {
  citations?: TCitation[];
};

const LINK_SCHEMES = ['http:', 'https:', 'mailto:', 'tel:'];

/** The normalised absolute URL when its scheme is allowed, else null (relative URLs too). */
export function safeUrl(raw: string, schemes: readonly string[] = LINK_SCHEMES): string | null {
  try {
    const url = new URL(raw.trim());
    return schemes.includes(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

// code | image | link | citation | bold | *italic* | _italic_ (not inside words) | bare URL
const INLINE =
  /`([^`\n]+)`|!\[([^\]]*)\]\((?:[^()\n]|\([^()\n]*\))*\)|\[([^\]]+)\]\(((?:[^()\s]|\([^()\s]*\))+)(?:\s+"[^"]*")?\)|\[(\d{1,3})\]|\*\*(.+?)\*\*|\*([^*\s](?:[^*]*?[^*\s])?)\*|(^|[^A-Za-z0-9_])_([^_\s](?:[^_]*?[^_\s])?)_(?![A-Za-z0-9_])|(https?:\/\/[^\s<>"'`]+)/g;
const LIST_ITEM = /^\s*(?:[-*+]|(\d{1,9})[.)])\s+(.*)$/;
const FENCE = /^\s*```/;
const HEADING = /^#{1,6}\s+(.*)$/;

function link(doc: Document, href: string, text: string): HTMLAnchorElement {
  const a = doc.createElement('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer nofollow';
  a.textContent = text;
  return a;
}

function renderInline(doc: Document, parent: Node, text: string, options: TMarkdownOptions): void {
  const re = new RegExp(INLINE.source, 'g');
  let last = 0;
  const textNode = (value: string) => {
    if (value) parent.appendChild(doc.createTextNode(value));
  };
  for (let m = re.exec(text); m; m = re.exec(text)) {
    textNode(text.slice(last, m.index));
    last = re.lastIndex;
    const [whole, code, alt, label, href, cite, bold, italic, prefix, italic2, bare] = m;
    if (code !== undefined) {
      const el = doc.createElement('code');
      el.textContent = code;
      parent.appendChild(el);
    } else if (alt !== undefined) {
      textNode(alt);
    } else if (label !== undefined) {
      const url = safeUrl(href ?? '');
      parent.appendChild(url ? link(doc, url, label) : doc.createTextNode(label));
    } else if (cite !== undefined) {
      const id = Number(cite);
      const source = options.citations?.find((c) => c.id === id);
      if (!source) {
        textNode(whole);
        continue;
      }
      // The marker points at its entry in the answer's source list (chat.ts), which holds the link.
      const el = doc.createElement('button');
      el.type = 'button';
      el.textContent = whole;
      el.className = 'cite';
      el.title = source.title;
      el.setAttribute('data-n', String(id));
      el.setAttribute('data-testid', 'citation');
      parent.appendChild(el);
    } else if (bold !== undefined || italic !== undefined || italic2 !== undefined) {
      textNode(prefix ?? '');
      const el = doc.createElement(bold !== undefined ? 'strong' : 'em');
      renderInline(doc, el, bold ?? italic ?? italic2 ?? '', options);
      parent.appendChild(el);
    } else if (bare !== undefined) {
      // Trailing punctuation usually ends the sentence, not the URL.
      const trail = /[.,;:!?]+$|\)$/.exec(bare)?.[0] ?? '';
      const core = trail === ')' && bare.includes('(') ? bare : bare.slice(0, bare.length - trail.length);
      const url = safeUrl(core, ['http:', 'https:']);
      parent.appendChild(url ? link(doc, url, core) : doc.createTextNode(core));
      textNode(bare.slice(core.length));
    }
  }
  textNode(text.slice(last));
}

/** Renders answer text (with its citations) to a fragment of safe DOM nodes. */
export function renderMarkdown(
  doc: Document,
  text: string,
  options: TMarkdownOptions = {},
): DocumentFragment {
  const out = doc.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const at = (i: number) => lines[i] ?? '';
  let i = 0;
  while (i < lines.length) {
    const line = at(i);
    if (FENCE.test(line)) {
      const body: string[] = [];
      for (i++; i < lines.length && !FENCE.test(at(i)); i++) body.push(at(i));
      i++;
      const pre = doc.createElement('pre');
      const code = doc.createElement('code');
      code.textContent = body.join('\n');
      pre.appendChild(code);
      out.appendChild(pre);
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const ordered = item[1] !== undefined;
      const list = doc.createElement(ordered ? 'ol' : 'ul');
      if (ordered && item[1] !== '1') list.setAttribute('start', String(Number(item[1])));
      for (let m = LIST_ITEM.exec(at(i)); m && (m[1] !== undefined) === ordered; m = LIST_ITEM.exec(at(i))) {
        const li = doc.createElement('li');
        renderInline(doc, li, m[2] ?? '', options);
        list.appendChild(li);
        i++;
      }
      out.appendChild(list);
      continue;
    }
    const p = doc.createElement('p');
    const heading = HEADING.exec(line);
    if (heading) {
      const strong = doc.createElement('strong');
      renderInline(doc, strong, heading[1] ?? '', options);
      p.appendChild(strong);
      i++;
    } else {
      let first = true;
      while (
        i < lines.length &&
        at(i).trim() &&
        !FENCE.test(at(i)) &&
        !LIST_ITEM.test(at(i)) &&
        !HEADING.test(at(i))
      ) {
        if (!first) p.appendChild(doc.createElement('br'));
        renderInline(doc, p, at(i), options);
        first = false;
        i++;
      }
    }
    out.appendChild(p);
  }
  return out;
}
