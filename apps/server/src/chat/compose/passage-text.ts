// Turns retrieved chunk text into sentences fit to quote: markup gone (list markers, heading
// hashes, emphasis, links, tags), headings and the document's own title left out, fragments
// that a chunk boundary cut off dropped, and near-duplicates (a chunk's overlap with the next,
// a post's excerpt repeating its first paragraph) recognised.

const MIN_SENTENCE_CHARS = 12;
const MAX_SENTENCE_CHARS = 400;
/** A line this short (in words) without closing punctuation reads as a heading. */
const HEADING_MAX_WORDS = 8;

/** One quotable sentence of a passage. */
export type PassageSentence = {
  text: string;
  /** Position in the passage. */
  position: number;
  /** A list item or a `label: value` line: reads as a fact (a quantity, a setting). */
  listed: boolean;
};

/** Markdown and HTML syntax removed from one line; whether it was a list item. */
function unmark(line: string): { text: string; listed: boolean } {
  let text = line.trim();
  const listed = /^(?:[*+•-]|\d{1,2}[.)])\s+/.test(text);
  text = text
    .replace(/^(?:[*+•-]|\d{1,2}[.)])\s+/, '')
    .replace(/^#{1,6}\s+/, '')
    .replace(/^>\s*/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[a-z][^>]*>/gi, ' ')
    .replace(/(\*\*|__|\*|`)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/[*`]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, listed };
}

/** Words of a text, lower case without diacritics, for comparing two texts. */
export function comparableWords(text: string): string[] {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Two sentences that say the same: one's words run inside the other's, or 80 % shared. */
export function sameSentence(a: string, b: string): boolean {
  const left = comparableWords(a);
  const right = comparableWords(b);
  if (left.length === 0 || right.length === 0) return false;
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  if (` ${long.join(' ')} `.includes(` ${short.join(' ')} `)) return true;
  const longWords = new Set(long);
  return short.filter((word) => longWords.has(word)).length / long.length >= 0.8;
}

const endsSentence = (text: string) => /[.!?。！？:;)"”]$/.test(text);

/**
 * The quotable sentences of a chunk, in order: split at line breaks and after sentence
 * punctuation; a heading (a short line without closing punctuation that is not a list item
 * or a `label: value` line), the title, a fragment starting in lower case (cut by a chunk
 * boundary), and a sentence too short or too long are left out.
 */
export function passageSentences(content: string, title: string): PassageSentence[] {
  const out: PassageSentence[] = [];
  const titleWords = comparableWords(title).join(' ');
  for (const rawLine of content.split(/\n+/)) {
    const { text: line, listed } = unmark(rawLine);
    if (line === '') continue;
    const labelled = /^[\p{Lu}][\p{L} ]{1,30}:\s+\S/u.test(line);
    const words = line.split(' ').length;
    if (!listed && !labelled && !endsSentence(line) && words <= HEADING_MAX_WORDS) continue;
    if (comparableWords(line).join(' ') === titleWords) continue;
    const parts = line.split(/(?<=[.!?。！？])\s+/u);
    parts.forEach((part, index) => {
      const sentence = part.trim();
      if (sentence.length < MIN_SENTENCE_CHARS || sentence.length > MAX_SENTENCE_CHARS) return;
      // A lower-case start is a sentence a chunk boundary cut (or a run-on of the line before).
      if (out.length === 0 && index === 0 && /^\p{Ll}/u.test(sentence)) return;
      out.push({ text: sentence, position: out.length, listed: listed || labelled });
    });
  }
  return out;
}
