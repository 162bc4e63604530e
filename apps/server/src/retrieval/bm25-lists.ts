import type { DatabaseFeatures } from '../db/database.js';
import { bm25List } from './bm25.js';
import { queryStatistics } from './bm25-terms.js';
import type { RankedList, SearchScope } from './fusion.js';
import { trigramList } from './lexical.js';
import { contentTerms, usesSearchOperators } from './query-terms.js';
import type { SearchComponents } from './search-components.js';

/**
 * The lexical lists of the BM25 ranking: the full-text list (BM25 over the query's content
 * words, typos corrected inside it, the strict websearch form first when the query uses its
 * syntax) and, when the `trigram` component is on, the separate typo list. Two statements
 * (three with the trigram list): the query's statistics, then the ranking.
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
    queryStatistics(scope, query, contentTerms(query), {
      config,
      configs: components.configs,
      strict,
      correct: features.trigram && components.correct,
    }),
    useTrigram ? trigramList(scope, query, config) : null,
  ]);
  const fulltext = await bm25List(
    scope,
    stats.terms,
    stats.strict,
    config,
    components.bm25,
    !components.anyWord,
  );
  return trigram ? [fulltext, trigram] : [fulltext];
}
