import type { ProductCard } from './answer-context.js';
import { type PassageSentence, passageSentences, sameSentence } from './compose/passage-text.js';
import { composerPhrases } from './compose/phrases.js';
import { CARD_LINE, productFactLine } from './compose/product-facts.js';
import { contentTerms, matchedTerms, requiredMatches, sellObject } from './compose/terms.js';

export { requiredMatches } from './compose/terms.js';

/** A retrieved passage offered to the extractive answerer, in retrieval order. */
export type OfflinePassage = {
  id: number;
  title: string;
  url: string | null;
  content: string;
  /** Matched by full-text or trigram search; a vector-only hit is no evidence for a quote. */
  fromText: boolean;
  /** The document the passage is a chunk of: chunks of one document are read together. */
  documentId?: string;
  /** The synced product behind the passage, with its stored fields. */
  product?: ProductCard | null;
  categories?: readonly string[];
};

/** An extractive answer: product facts and cleaned sentences with `[N]` citations, and the ids cited. */
export type OfflineAnswer = { text: string; cited: number[] };

/** The longest answer, lead-in included. */
export const MAX_OFFLINE_ANSWER_CHARS = 600;
/** The most sentences quoted. */
const MAX_SENTENCES = 3;
/** Only the best documents are quoted from. */
const MAX_DOCUMENTS = 3;
/** The most products one answer states the fields of. */
const MAX_PRODUCTS = 3;

/** The passages of one document, read together. */
type Doc = {
  rank: number;
  title: string;
  product: ProductCard | null;
  categories: readonly string[];
  chunks: OfflinePassage[];
  titleTerms: Set<string>;
};

type Candidate = PassageSentence & { id: number; doc: Doc; own: Set<string>; total: number };

/** A cited line of the answer: a product's facts or a quoted sentence. */
type Line = { text: string; id: number; candidate: Candidate | null };

/**
 * Answers without a model. Products the question names (their title covers the question's
 * subject) are stated from their synced fields — price, sale, stock, link — with their
 * description's first sentence; otherwise up to three sentences of the best text-matched
 * documents are quoted, cleaned of markup, headings and repeated sentences, by overlap with
 * the question's content words (facts — numbers, list items — first). "Do you sell X?" is
 * answered by products named or categorised X only. Null — the caller says it does not know —
 * when the question has no content word or the evidence is too weak: the best sentence (with
 * its document's title) must match 1 of 1–2 content words, else at least 2 and a third of them.
 */
export function composeOfflineAnswer(input: {
  question: string;
  passages: readonly OfflinePassage[];
  language?: string | undefined;
}): OfflineAnswer | null {
  const terms = contentTerms(input.question);
  if (terms.length === 0) return null;
  const words = composerPhrases(input.language);
  const docs = documents(input.passages, terms);
  const object = sellObject(input.question, terms);
  const lines = object ? sellAnswer(docs, object, words) : subjectAnswer(docs, terms, words);
  if (lines === null || lines.length === 0) return null;
  const text = [words.leadIn, ...lines.map((line) => line.text)].join('\n');
  return { text, cited: [...new Set(lines.map((line) => line.id))] };
}

/** The text-matched passages grouped by document, in retrieval order; the best few documents. */
function documents(passages: readonly OfflinePassage[], terms: readonly string[]): Doc[] {
  const byKey = new Map<string, Doc>();
  for (const passage of passages) {
    if (!passage.fromText) continue;
    const key = passage.documentId ?? `passage:${passage.id}`;
    const known = byKey.get(key);
    if (known) {
      known.chunks.push(passage);
      continue;
    }
    if (byKey.size === MAX_DOCUMENTS) continue;
    byKey.set(key, {
      rank: byKey.size,
      title: passage.title,
      product: passage.product ?? null,
      categories: passage.categories ?? [],
      chunks: [passage],
      titleTerms: matchedTerms(terms, passage.title),
    });
  }
  return [...byKey.values()];
}

/** "Do you sell X?": the products named or categorised X, else sentences of other pages naming all of X. */
function sellAnswer(
  docs: readonly Doc[],
  object: readonly string[],
  words: ReturnType<typeof composerPhrases>,
): Line[] | null {
  const products = docs.filter(
    (doc) =>
      doc.product && matchedTerms(object, `${doc.title} ${doc.categories.join(' ')}`).size === object.length,
  );
  if (products.length > 0)
    return products.slice(0, MAX_PRODUCTS).flatMap((doc) => productLines(doc, words, false));
  const pages = docs.filter((doc) => !doc.product);
  const candidates = sentenceCandidates(pages, object).filter((c) => c.total === object.length);
  return quote(candidates, [], MAX_SENTENCES);
}

/** Any other question: the products it names, with what else it asks; else the best sentences. */
function subjectAnswer(
  docs: readonly Doc[],
  terms: readonly string[],
  words: ReturnType<typeof composerPhrases>,
): Line[] | null {
  const needed = requiredMatches(terms.length);
  const products = docs.filter((doc) => doc.product && doc.titleTerms.size >= needed);
  const best = Math.max(0, ...products.map((doc) => doc.titleTerms.size));
  const subjects = products.filter((doc) => doc.titleTerms.size === best).slice(0, MAX_PRODUCTS);
  const candidates = sentenceCandidates(docs, terms);
  if (subjects.length > 0) {
    const facts = subjects.flatMap((doc) => productLines(doc, words, true));
    // Beyond the product, only sentences that match what its name does not (the "taste" of "what does X taste like").
    const named = new Set(subjects.flatMap((doc) => [...doc.titleTerms]));
    const more = candidates.filter((c) => c.total >= needed && [...c.own].some((term) => !named.has(term)));
    return [...facts, ...(quote(more, facts, MAX_SENTENCES - subjects.length) ?? [])];
  }
  const top = candidates[0];
  if (!top || top.total < needed) return null;
  // Only sentences as close to the question as the best one: a weaker one is padding.
  return quote(
    candidates.filter((c) => c.total === top.total),
    [],
    MAX_SENTENCES,
  );
}

/** A product's fact line, and the first sentence of its description when `describe`. */
function productLines(doc: Doc, words: ReturnType<typeof composerPhrases>, describe: boolean): Line[] {
  const first = doc.chunks[0];
  if (!doc.product || !first) return [];
  const lines: Line[] = [
    { text: productFactLine(doc.product, first.id, words), id: first.id, candidate: null },
  ];
  if (!describe) return lines;
  // The description opens the chunk that starts with the product's name.
  const opening = doc.chunks.find((chunk) => chunk.content.trimStart().startsWith(doc.title));
  const sentence = opening
    ? passageSentences(opening.content, doc.title).find((s) => !CARD_LINE.test(s.text))
    : undefined;
  if (opening && sentence)
    lines.push({ text: `“${sentence.text}” [${opening.id}]`, id: opening.id, candidate: null });
  return lines;
}

/**
 * The sentences of the documents that can answer, best first: those matching a content word,
 * and every sentence of a document whose title alone matches enough of them. Ranked by the
 * words matched with the title, then facts (a number, a list item) first, then words matched
 * in the sentence itself, then retrieval and reading order.
 */
function sentenceCandidates(docs: readonly Doc[], terms: readonly string[]): Candidate[] {
  const needed = requiredMatches(terms.length);
  const out: Candidate[] = [];
  for (const doc of docs) {
    const titleCovers = doc.titleTerms.size >= needed;
    for (const chunk of doc.chunks) {
      for (const sentence of passageSentences(chunk.content, doc.title)) {
        if (doc.product && CARD_LINE.test(sentence.text)) continue;
        const own = matchedTerms(terms, sentence.text);
        if (own.size === 0 && !titleCovers) continue;
        const total = new Set([...own, ...doc.titleTerms]).size;
        out.push({ ...sentence, id: chunk.id, doc, own, total });
      }
    }
  }
  const fact = (c: Candidate) => (/\d/.test(c.text) ? 2 : 0) + (c.listed ? 1 : 0);
  return out.sort(
    (a, b) =>
      b.total - a.total ||
      fact(b) - fact(a) ||
      b.own.size - a.own.size ||
      a.doc.rank - b.doc.rank ||
      a.id - b.id ||
      a.position - b.position,
  );
}

/** Up to `max` candidates, none repeating another or a line already given, read in source order. */
function quote(candidates: readonly Candidate[], given: readonly Line[], max: number): Line[] | null {
  const chosen: Candidate[] = [];
  let length = given.reduce((sum, line) => sum + line.text.length + 1, 30);
  const givenText = given.map((line) => line.text);
  for (const candidate of candidates) {
    if (chosen.length >= max) break;
    if (chosen.some((c) => sameSentence(c.text, candidate.text))) continue;
    if (givenText.some((text) => sameSentence(text, candidate.text))) continue;
    const extra = candidate.text.length + String(candidate.id).length + 6;
    if (length + extra > MAX_OFFLINE_ANSWER_CHARS) continue;
    chosen.push(candidate);
    length += extra;
  }
  if (chosen.length === 0) return given.length > 0 ? [] : null;
  chosen.sort((a, b) => a.doc.rank - b.doc.rank || a.id - b.id || a.position - b.position);
  return chosen.map((c) => ({ text: `“${c.text}” [${c.id}]`, id: c.id, candidate: c }));
}
