import type { TAgentQuestion, TCorrectionTestResult, TEvaluationMetrics } from '@service/contract';
import { QUESTION_REASONS, QUESTION_STATUSES } from '@service/contract';

/** Helpers the corrections, questions and quality screens share (pure: tested on their own). */

/** Why a question was recorded, in the words of its badge and its filter. */
export const REASON_TEXT: Record<TAgentQuestion['reasons'][number], string> = {
  no_match: 'No match',
  fallback: '“I don’t know”',
  handoff: 'Asked for a human',
  rated_down: 'Rated down',
};

/** How a resolved question was dealt with. */
export const RESOLUTION_TEXT: Record<NonNullable<TAgentQuestion['resolution']>, string> = {
  correction: 'Answered by a correction',
  kb_article: 'Answered by a KB article',
  dismissed: 'Dismissed',
};

/** What "test a question" decided, as one sentence. */
export function decisionText(result: Pick<TCorrectionTestResult, 'decision' | 'correction'>): string {
  if (result.decision === 'correction') return 'A correction answers this question.';
  if (result.decision === 'chunks')
    return 'No correction is close enough: the agent answers from its knowledge.';
  return 'Nothing matches: the agent would say it does not know.';
}

/** A 0–1 similarity or fused score, four decimals (as the playground shows scores). */
export function scoreText(score: number): string {
  return score.toFixed(4);
}

/** A 0–1 recall as a percentage with one decimal: `0.8` → `80.0 %`. */
export function percentText(share: number): string {
  return `${(share * 100).toFixed(1)} %`;
}

/** A run's metrics as the table cells show them (dashes until the run is done). */
export function metricCells(metrics: TEvaluationMetrics | null): {
  questions: string;
  recall1: string;
  recall5: string;
  mrr: string;
} {
  if (!metrics) return { questions: '—', recall1: '—', recall5: '—', mrr: '—' };
  return {
    questions: String(metrics.questions),
    recall1: percentText(metrics.recall_at_1),
    recall5: percentText(metrics.recall_at_5),
    mrr: metrics.mrr.toFixed(3),
  };
}

/** The change of a metric since the previous run, signed (`+5.0 pts`), or null when there is none. */
export function deltaText(now: number, before: number | null | undefined): string | null {
  if (before === null || before === undefined) return null;
  const points = (now - before) * 100;
  if (Math.abs(points) < 0.05) return null;
  return `${points > 0 ? '+' : '−'}${Math.abs(points).toFixed(1)} pts`;
}

/** The lines of a text area, trimmed, blank ones dropped (one expected page per line). */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Status and reason filters of the questions list. */
export type QuestionFilter = {
  status: (typeof QUESTION_STATUSES)[number] | 'all';
  reason: (typeof QUESTION_REASONS)[number] | 'all';
};

/** The list route's query for a filter (`all` sends nothing), with `limit` and `cursor`. */
export function questionsQuery(filter: QuestionFilter, limit: number, cursor: string | null): string {
  const query = new URLSearchParams();
  if (filter.status !== 'all') query.set('status', filter.status);
  if (filter.reason !== 'all') query.set('reason', filter.reason);
  query.set('order', 'desc');
  query.set('limit', String(limit));
  if (cursor !== null) query.set('cursor', cursor);
  return `?${query}`;
}

/** Reads a filter from the page's query string; anything unknown is `all`. */
export function filterOf(query: Record<string, string | undefined>): QuestionFilter {
  const status = QUESTION_STATUSES.find((value) => value === query.status) ?? 'all';
  const reason = QUESTION_REASONS.find((value) => value === query.reason) ?? 'all';
  // With no status asked, the open questions: the ones that still need someone.
  return { status: query.status === undefined ? 'open' : status, reason };
}

/**
 * The answer a correction of a recorded question starts from: the agent's own answer when it
 * gave one (a down-rated answer to be fixed), empty when it said it did not know.
 */
export function draftAnswerOf(question: Pick<TAgentQuestion, 'answer' | 'reasons'>): string {
  const saidNothing = question.reasons.includes('no_match') || question.reasons.includes('fallback');
  return saidNothing ? '' : question.answer;
}

/** Whether a run is still on its way (the page asks again while one is). */
export function isRunBusy(run: { status: string }): boolean {
  return run.status === 'queued' || run.status === 'running';
}

/** "1 item", "3 items". */
export const countText = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The KB settings form's state: every field as typed ('' clears a nullable one). */
export type KbSettingsDraft = { title: string; logo_url: string; color: string; widget_agent_id: string };

/** The PATCH body of the KB settings form: blank nullable fields become null (cleared). */
export function kbSettingsBody(draft: KbSettingsDraft) {
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
  return {
    title: draft.title,
    logo_url: orNull(draft.logo_url),
    color: orNull(draft.color),
    widget_agent_id: orNull(draft.widget_agent_id),
  };
}

/** Expected pages typed one a line: `http(s)://` lines are URLs, anything else a document id. */
export function expectedOf(text: string): { expected_urls: string[]; expected_document_ids: string[] } {
  const lines = linesOf(text);
  return {
    expected_urls: lines.filter((line) => /^https?:\/\//i.test(line)),
    expected_document_ids: lines.filter((line) => !/^https?:\/\//i.test(line)),
  };
}

/** Field errors by key, as the console's forms hold them (components/use-form's `FieldErrors`). */
type FieldErrors = Record<string, string[]>;

/** Errors of a golden form on its own fields (`expected_urls.2` and `expected_document_ids` on the one text area). */
export function onFields(errors: FieldErrors, key: string): FieldErrors {
  const out: FieldErrors = {};
  for (const [field, messages] of Object.entries(errors)) {
    const name = field.startsWith('expected_') ? 'expected' : field.split('.')[0];
    const target = `${key}-${name}`;
    out[target] = [...(out[target] ?? []), ...messages];
  }
  return out;
}
