/**
 * The retrieval golden set (`bench/golden/sqlite/sqlite-docs.jsonl`) and its metrics: each
 * question's hits ranked as distinct pages, a page named by its URL path relative to the corpus
 * root, and recall@1, recall@5 and MRR@10 per kind of question and overall. Plain functions, no
 * I/O beyond reading the set, so a test can check the arithmetic on a hand-made set.
 */
import { readFileSync } from 'node:fs';

/** One golden question: the pages that answer it (`expected_url` first, then `also_ok`). */
export type GoldenQuestion = { id: string; kind: string; question: string; ok: string[] };

/** Sums per kind: questions, found at rank 1, found in the top 5, and reciprocal ranks within 10. */
export type Tally = { n: number; r1: number; r5: number; mrr: number };

/** Recall@1, recall@5 and MRR@10 of a tally (0 for an empty one). */
export type Scores = { n: number; recall1: number; recall5: number; mrr10: number };

/** MRR counts a hit only within this many distinct pages. */
export const MRR_DEPTH = 10;
/** "Found" for recall@5. */
export const RECALL_DEPTH = 5;

const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** Parses the set (JSON Lines, blank lines skipped); throws naming the first bad line. */
export function parseGolden(text: string): GoldenQuestion[] {
  const questions: GoldenQuestion[] = [];
  for (const [index, line] of text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .entries()) {
    if (line.trim() === '') continue;
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) throw new Error(`line ${index + 1}: not an object`);
    const record = value as Record<string, unknown>;
    const { id, kind, question, expected_url: expected, also_ok: alsoOk } = record;
    if (!isString(question) || !isString(expected))
      throw new Error(`line ${index + 1}: needs question and expected_url`);
    const others = Array.isArray(alsoOk) ? alsoOk.filter(isString) : [];
    questions.push({
      id: isString(id) ? id : `line-${index + 1}`,
      kind: isString(kind) ? kind : 'unknown',
      question,
      ok: [expected, ...others],
    });
  }
  return questions;
}

/** Reads and parses a golden set file. */
export function readGolden(file: string): GoldenQuestion[] {
  return parseGolden(readFileSync(file, 'utf8'));
}

/**
 * A hit's page: its URL path relative to `root` (the corpus server's base URL), decoded, with
 * `index.html` for the root itself. Null for a URL that is not under `root`.
 */
export function pageOf(url: string | null | undefined, root: string): string | null {
  if (!url) return null;
  let parsed: URL;
  let base: URL;
  try {
    parsed = new URL(url);
    base = new URL(root.endsWith('/') ? root : `${root}/`);
  } catch {
    return null;
  }
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(base.pathname)) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(parsed.pathname.slice(base.pathname.length));
  } catch {
    return null;
  }
  return rel === '' ? 'index.html' : rel;
}

/** The distinct pages of a ranked list of hit URLs, in order of first appearance. */
export function rankPages(urls: readonly (string | null | undefined)[], root: string): string[] {
  const pages: string[] = [];
  for (const url of urls) {
    const page = pageOf(url, root);
    if (page !== null && !pages.includes(page)) pages.push(page);
  }
  return pages;
}

/** The 1-based rank of the first page that answers the question, or null when none does. */
export function rankOf(question: GoldenQuestion, pages: readonly string[]): number | null {
  const at = pages.findIndex((page) => question.ok.includes(page));
  return at === -1 ? null : at + 1;
}

/** Adds one question's rank to its kind's tally and to `overall`. */
export function addRank(tallies: Map<string, Tally>, kind: string, rank: number | null): void {
  for (const key of [kind, 'overall']) {
    const tally = tallies.get(key) ?? { n: 0, r1: 0, r5: 0, mrr: 0 };
    tally.n += 1;
    if (rank === 1) tally.r1 += 1;
    if (rank !== null && rank <= RECALL_DEPTH) tally.r5 += 1;
    if (rank !== null && rank <= MRR_DEPTH) tally.mrr += 1 / rank;
    tallies.set(key, tally);
  }
}

/** A tally as rates. */
export function scoresOf(tally: Tally | undefined): Scores {
  if (!tally || tally.n === 0) return { n: 0, recall1: 0, recall5: 0, mrr10: 0 };
  return { n: tally.n, recall1: tally.r1 / tally.n, recall5: tally.r5 / tally.n, mrr10: tally.mrr / tally.n };
}

/** Scores per kind (in the order the kinds first occur) and `overall` last, from each question's rank. */
export function scoreRanks(
  questions: readonly GoldenQuestion[],
  ranks: readonly (number | null)[],
): Map<string, Scores> {
  const tallies = new Map<string, Tally>();
  for (const question of questions) tallies.set(question.kind, { n: 0, r1: 0, r5: 0, mrr: 0 });
  questions.forEach((question, i) => {
    addRank(tallies, question.kind, ranks[i] ?? null);
  });
  return new Map([...tallies].map(([kind, tally]) => [kind, scoresOf(tally)]));
}
