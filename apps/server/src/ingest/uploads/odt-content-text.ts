/** XML's five predefined entities; ODF declares no DTD, so no other named entity is expanded. */
const PREDEFINED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

/** Elements whose text is not body text (footnote bodies, comments, tracked deletions). */
const SKIPPED_ELEMENTS = new Set([
  'text:note-body',
  'text:note-citation',
  'office:annotation',
  'text:tracked-changes',
  'office:forms',
]);

/** Decodes predefined and numeric character references; leaves anything else as written. */
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED_ENTITIES[name] ?? whole;
  });
}

/**
 * The paragraphs of an ODF `content.xml`, in order: each `text:p` and `text:h` inside
 * `office:body` is one entry, trimmed, empty ones included (`text:s`, `text:tab` and
 * `text:line-break` become spaces, tabs and newlines). A small tokenizer rather than a DOM: no
 * entity expansion, no DTD, and memory linear in the input.
 */
export function odtParagraphs(xml: string): string[] {
  const lines: string[] = [];
  let line = '';
  let inBody = false;
  let skipDepth = 0;
  let paragraphDepth = 0;
  // Every alternative stops at the next '<' or consumes to the end, so a malformed file costs
  // linear time (no rescanning to the end from each stray '<').
  const tokens =
    /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[([\s\S]*?)(?:\]\]>|$)|<[?!][^<>]*>?|<(\/?)([\w.:-]+)((?:[^<>"']|"[^"<]*"|'[^'<]*')*?)(\/?)>|<|([^<]+)/g;
  for (const match of xml.matchAll(tokens)) {
    const [, cdata, closing, name, attributes, selfClosing, text] = match;
    if (text !== undefined || cdata !== undefined) {
      if (inBody && skipDepth === 0 && paragraphDepth > 0) {
        line += text === undefined ? (cdata ?? '') : decodeEntities(text);
      }
      continue;
    }
    if (name === undefined) continue;
    if (name === 'office:body') {
      inBody = closing === '';
      continue;
    }
    if (!inBody) continue;
    const isEnd = closing === '/';
    const isEmpty = selfClosing === '/';
    if (SKIPPED_ELEMENTS.has(name)) {
      if (!isEmpty) skipDepth += isEnd ? -1 : 1;
      continue;
    }
    if (skipDepth > 0) continue;
    if (name === 'text:p' || name === 'text:h') {
      if (isEnd) {
        paragraphDepth = Math.max(0, paragraphDepth - 1);
        if (paragraphDepth === 0) {
          lines.push(line.trim());
          line = '';
        }
      } else if (isEmpty) {
        if (paragraphDepth === 0) lines.push('');
      } else {
        paragraphDepth += 1;
      }
      continue;
    }
    if (paragraphDepth === 0 || isEnd) continue;
    if (name === 'text:s') {
      const count = Number(/text:c\s*=\s*["'](\d+)["']/.exec(attributes ?? '')?.[1] ?? '1');
      line += ' '.repeat(Math.min(Number.isFinite(count) ? count : 1, 100));
    } else if (name === 'text:tab') {
      line += '\t';
    } else if (name === 'text:line-break') {
      line += '\n';
    }
  }
  return lines;
}

/** Paragraphs as text: one per line, at most one blank line in a row. */
export function joinOdtParagraphs(paragraphs: readonly string[]): string {
  return paragraphs
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The readable text of an ODF `content.xml`: its {@link odtParagraphs}, one per line. */
export function odtContentText(xml: string): string {
  return joinOdtParagraphs(odtParagraphs(xml));
}
