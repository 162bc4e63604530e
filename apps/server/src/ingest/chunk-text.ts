/** Chunk sizes, in characters. */
export type ChunkOptions = { maxChars: number; overlapChars: number };

const DEFAULTS: ChunkOptions = { maxChars: 1200, overlapChars: 150 };

/**
 * Splits text into retrieval chunks: a new chunk starts at each heading-like line, paragraphs
 * are packed up to `maxChars`, a paragraph that is too long is split at sentence ends (and a
 * sentence that is too long at spaces). Each chunk after the first repeats the end of the one
 * before (`overlapChars`) so a passage cut in two is still found whole. No text is dropped.
 */
export function chunkText(text: string, options: Partial<ChunkOptions> = {}): string[] {
  const { maxChars, overlapChars } = { ...DEFAULTS, ...options };
  const sections = splitSections(text);
  const pieces: string[] = [];
  for (const section of sections) {
    let current = '';
    for (const paragraph of section) {
      for (const part of paragraph.length > maxChars ? splitLong(paragraph, maxChars) : [paragraph]) {
        if (current && current.length + 2 + part.length > maxChars) {
          pieces.push(current);
          current = part;
        } else {
          current = current ? `${current}\n\n${part}` : part;
        }
      }
    }
    if (current) pieces.push(current);
  }
  return pieces.map((piece, index) => {
    const previous = pieces[index - 1];
    if (!previous || overlapChars <= 0) return piece;
    return `${tail(previous, overlapChars)}\n\n${piece}`;
  });
}

/** Groups paragraphs into sections that start at heading-like lines (markdown `#` or short title lines). */
function splitSections(text: string): string[][] {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  const sections: string[][] = [];
  for (const paragraph of paragraphs) {
    const last = sections.at(-1);
    if (!last || isHeading(paragraph)) sections.push([paragraph]);
    else last.push(paragraph);
  }
  return sections;
}

function isHeading(paragraph: string): boolean {
  if (/^#{1,6}\s/.test(paragraph)) return true;
  return !paragraph.includes('\n') && paragraph.length <= 80 && !/[.!?:;,]$/.test(paragraph);
}

/** Splits at sentence ends, then at spaces for sentences longer than the limit. */
function splitLong(paragraph: string, maxChars: number): string[] {
  const sentences = paragraph.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [paragraph];
  const out: string[] = [];
  let current = '';
  for (const raw of sentences) {
    const sentence = raw.trim();
    if (sentence === '') continue;
    const parts = sentence.length > maxChars ? splitAtSpaces(sentence, maxChars) : [sentence];
    for (const part of parts) {
      if (current && current.length + 1 + part.length > maxChars) {
        out.push(current);
        current = part;
      } else {
        current = current ? `${current} ${part}` : part;
      }
    }
  }
  if (current) out.push(current);
  return out;
}

function splitAtSpaces(sentence: string, maxChars: number): string[] {
  const out: string[] = [];
  let rest = sentence;
  while (rest.length > maxChars) {
    const cut = rest.lastIndexOf(' ', maxChars);
    const at = cut > maxChars / 2 ? cut : maxChars;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** The last `chars` characters of a chunk, starting at a word boundary. */
function tail(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const slice = text.slice(-chars);
  const space = slice.indexOf(' ');
  return (space >= 0 ? slice.slice(space + 1) : slice).trim();
}
