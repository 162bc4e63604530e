import type { TCitation } from '@service/contract';
import type { AnswerSource } from './answer-context.js';

/** Most follow-up chips under one answer. */
const MAX_SUGGESTIONS = 3;

/** Short words that say nothing about a topic, in the languages the service answers in most. */
const STOP = new Set(
  'about also have your with what when where which that this there their from will would could should does shop store please thanks hello help need want know just more some than them they were been into over only very much many your yours ours'.split(
    ' ',
  ),
);

/** The topic words of a text: lower case, 4+ letters, stop words out, a plural `s` dropped. */
export function topicWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const raw of text.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]*/gu) ?? []) {
    const word = raw.replace(/'s$/, '');
    if (word.length < 4 || STOP.has(word)) continue;
    words.add(word.length > 4 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word);
  }
  return words;
}

function shares(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const word of a) if (b.has(word)) return true;
  return false;
}

/**
 * Follow-up chips for a grounded answer, drawn only from its own retrieval: a product the answer
 * names but did not cite, a source of the same category as a cited product, or a source whose
 * title shares a topic word with the question or the cited titles. None rather than unrelated
 * ones (a returns question is not offered coffee names because a typo match found them).
 */
export function answerSuggestions(options: {
  question: string;
  text: string;
  citations: readonly TCitation[];
  sources: readonly AnswerSource[];
}): string[] {
  if (options.citations.length === 0) return [];
  const citedIds = new Set(options.citations.map((citation) => citation.id));
  const cited = options.sources.filter((source) => citedIds.has(source.id));
  const citedTitles = new Set(cited.map((source) => source.hit.title.trim().toLowerCase()));
  const topics = topicWords(`${options.question} ${cited.map((source) => source.hit.title).join(' ')}`);
  const categories = new Set(cited.flatMap((source) => source.categories ?? []).map((c) => c.toLowerCase()));
  const answer = options.text.toLowerCase();
  const chips: string[] = [];
  for (const source of options.sources) {
    const title = source.hit.title.trim();
    if (citedIds.has(source.id) || !source.fromText || title === '') continue;
    if (citedTitles.has(title.toLowerCase()) || chips.includes(title.slice(0, 80))) continue;
    const isNamed = source.product !== null && answer.includes(title.toLowerCase());
    const isSameKind = (source.categories ?? []).some((c) => categories.has(c.toLowerCase()));
    if (isNamed || isSameKind || shares(topicWords(title), topics)) chips.push(title.slice(0, 80));
    if (chips.length >= MAX_SUGGESTIONS) break;
  }
  return chips;
}
