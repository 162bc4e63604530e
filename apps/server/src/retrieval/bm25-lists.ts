import type { DatabaseFeatures } from '../db/database.js';
import { bm25List } from './bm25.js';
import { queryStatistics } from './bm25-terms.js';
import { feedbackTerms } from './feedback.js';
import type { RankedList, SearchScope } from './fusion.js';
import { trigramList } from './lexical.js';
import { contentTerms, usesSearchOperators } from './query-terms.js';
import type { SearchComponents } from './search-components.js';
import { EDIT_MIN_LENGTH } from './vocabulary.js';

/** The words without single letters (a lone digit stays: "code 5"), unless nothing else is left. */
export function withoutLetters(words: readonly string[]): string[] {
  const longer = words.filter((word) => !/^\p{L}\p{M}*$/u.test(word));
  return longer.length > 0 ? longer : [...words];
}

/**
 * The lexical lists of the BM25 ranking: the full-text list (BM25 over the query's content
 * words, typos corrected inside it, the strict websearch form first when the query uses its
 * syntax), re-ranked with pseudo-relevance feedback (`feedbackTerms`), and, when the `trigram`
 * component is on, the separate typo list. Two statements (three with the trigram list): the
 * query's statistics, and the ranking with the feedback words of its top chunks and the
 * re-ranking folded in; four when feedback is not folded (its words, then the re-ranking).
 */
export async function bm25Lists(
  scope: SearchScope,
  query: string,
  config: string,
  features: DatabaseFeatures,
  components: Readonly<SearchComponents>,
): Promise<RankedList[]> {
  const strict =
    components.allWords === true || (components.allWords === 'operators' && usesSearchOperators(query));
  const useTrigram = features.trigram && components.trigram;
  const [stats, trigram] = await Promise.all([
    queryStatistics(
      scope,
      query,
      components.letters ? contentTerms(query) : withoutLetters(contentTerms(query)),
      {
        config,
        configs: components.configs,
        strict,
        correct: features.trigram && components.correct,
        slips: components.slips,
        minLength: components.shortFixes ? 1 : EDIT_MIN_LENGTH,
      },
    ),
    useTrigram ? trigramList(scope, query, config) : null,
  ]);
  const { feedback } = components;
  // Feedback re-ranks the first ranking's candidates with their top chunks' words added: inside
  // the ranking statement (folded), or as two statements after it.
  const folded = feedback.folded !== false && feedback.weight > 0 && components.bm25.pages === 0;
  const fulltext = await bm25List(scope, stats.terms, stats.strict, config, components.bm25, {
    strictOnly: !components.anyWord,
    feedback: folded ? { settings: feedback, chunks: stats.chunks } : undefined,
  });
  const extra =
    !folded && feedback.weight > 0 && fulltext.ids.length > 1
      ? await feedbackTerms(scope, fulltext.ids, stats.terms, stats.chunks, feedback)
      : [];
  const ranked =
    extra.length > 0
      ? await bm25List(scope, [...stats.terms, ...extra], stats.strict, config, components.bm25, {
          strictOnly: !components.anyWord,
          within: fulltext.ids,
        })
      : fulltext;
  return trigram ? [ranked, trigram] : [ranked];
}
