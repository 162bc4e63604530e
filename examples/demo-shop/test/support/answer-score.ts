// Scores the chat's answers to the demo shop's visitor question set
// (test/fixtures/offline-answers.json): each expected fact present, the expected kind of reply,
// no quote repeated, no raw markup quoted.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { noAnswerReply } from '../../../../apps/server/src/chat/fixed-replies.js';

const ZQuestion = z.object({
  q: z.string(),
  locale: z.string().default('en'),
  facts: z.array(z.string()).default([]),
  kind: z.enum(['answer', 'smalltalk', 'handoff', 'dont_know']).default('answer'),
});
export type Question = z.output<typeof ZQuestion>;

/** The question set, from the fixture beside the tests. */
export function loadQuestions(): Question[] {
  const raw: unknown = JSON.parse(
    readFileSync(new URL('../fixtures/offline-answers.json', import.meta.url), 'utf8'),
  );
  return z.object({ questions: z.array(ZQuestion) }).parse(raw).questions;
}

/** What the test saw for one question. */
export type Observed = { text: string; citations: number; status: string };

/** A question's verdict: passed, or the reasons it failed. */
export type Verdict = { question: Question; observed: Observed; problems: string[] };

const normal = (text: string) => text.replace(/\s+/g, ' ').trim().toLowerCase();

/** The quoted passages of an answer (“…”), or its lines when it quotes nothing. */
function quotes(text: string): string[] {
  const quoted = [...text.matchAll(/“([^”]*)”/g)].map((match) => match[1] ?? '');
  return quoted.length > 0 ? quoted : text.split('\n').filter((line) => line.trim() !== '');
}

/** Words of a passage, for comparing two of them. */
function words(text: string): string[] {
  return normal(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Two passages that say the same: one's words inside the other's, or 80 % of them shared. */
export function nearDuplicates(a: string, b: string): boolean {
  const left = words(a);
  const right = words(b);
  if (left.length === 0 || right.length === 0) return false;
  const [short, long] = left.length <= right.length ? [left, right] : [right, left];
  if (long.join(' ').includes(short.join(' '))) return true;
  const longSet = new Set(long);
  const shared = short.filter((word) => longSet.has(word)).length;
  return shared / long.length >= 0.8;
}

/** Markdown or HTML syntax shown as text inside a quote. */
const RAW_MARKUP = [/^\s*[*+#>-]+\s/, /\*\*|__|`/, /<\/?[a-z][^>]*>/i, /\s[*#]\s/];

/** Problems of form shared by every answer: a repeated quote, raw markup in a quote. */
export function formProblems(text: string): string[] {
  const problems: string[] = [];
  const parts = quotes(text);
  parts.forEach((part, i) => {
    if (parts.slice(0, i).some((earlier) => nearDuplicates(earlier, part))) {
      problems.push(`duplicate quote: ${part.slice(0, 60)}`);
    }
    if (RAW_MARKUP.some((pattern) => pattern.test(part))) problems.push(`raw markup: ${part.slice(0, 60)}`);
  });
  return problems;
}

/** Scores one answer against its question (its form too, unless `form` is false: a prompt is no answer). */
export function score(question: Question, observed: Observed, form = true): Verdict {
  const problems = form ? formProblems(observed.text) : [];
  const text = normal(observed.text);
  const dontKnow = normal(noAnswerReply(question.locale, true));
  for (const fact of question.facts) {
    if (!text.includes(normal(fact))) problems.push(`missing "${fact}"`);
  }
  if (question.kind === 'dont_know' && text !== dontKnow) problems.push('expected "I don\'t know"');
  if (question.kind !== 'dont_know' && text === dontKnow) problems.push('answered "I don\'t know"');
  if (question.kind === 'smalltalk' && (observed.citations > 0 || observed.text.length > 200)) {
    problems.push('small talk answered with quotes');
  }
  if (question.kind === 'handoff' && observed.status !== 'waiting') {
    problems.push(`conversation ${observed.status}, not waiting`);
  }
  return { question, observed, problems };
}

/** The verdicts as a table, one row each, then the pass rate. */
export function table(verdicts: readonly Verdict[]): string {
  const rows = verdicts.map((verdict) => {
    const mark = verdict.problems.length === 0 ? 'pass' : 'FAIL';
    const answer = verdict.observed.text.replace(/\n/g, ' ⏎ ').replace(/\s+/g, ' ');
    const why = verdict.problems.join('; ');
    return `${mark} | ${verdict.question.kind.padEnd(9)} | ${verdict.question.q}${why ? ` | ${why}` : ''}\n    ${answer}`;
  });
  const passed = verdicts.filter((verdict) => verdict.problems.length === 0).length;
  return `${rows.join('\n')}\n${passed}/${verdicts.length} passed (${Math.round((passed / verdicts.length) * 100)} %)`;
}
