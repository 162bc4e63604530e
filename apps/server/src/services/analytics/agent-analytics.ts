import {
  ANALYTICS_CSV_COLUMNS,
  ANALYTICS_PERIOD_MAX_DAYS,
  ANALYTICS_TOP_MAX,
  type TAgentAnalytics,
  type TAnalyticsCounts,
  type TAnalyticsDay,
  type TAnalyticsQuery,
  type TAnalyticsQuestion,
  type TAnalyticsSource,
  type TAnalyticsTotals,
} from '@service/contract';
import { type RawBuilder, sql } from 'kysely';
import { validationError } from '../../errors/app-error.js';
import type { AgentScope } from '../quality/corrections.js';
import { requireAgent } from '../require-agent.js';
import { refreshAnalytics } from './analytics-rollup.js';
import { conversationsBetween, dailyCounts, nextDay, questionCounts, sourceCounts } from './analytics-sql.js';

/** A resolved period: UTC days, both included. */
export type AnalyticsPeriod = { from: string; to: string };

const DAY_MS = 86_400_000;

/** The period a query asks for (defaults: the 30 days up to today); a bad one is a 422. */
export function analyticsPeriodOf(query: TAnalyticsQuery, now: Date): AnalyticsPeriod {
  const to = query.to ?? now.toISOString().slice(0, 10);
  const from = query.from ?? new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS).toISOString().slice(0, 10);
  const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS + 1;
  if (span < 1) throw validationError({ from: ['The period must start on or before its end (to).'] });
  if (span > ANALYTICS_PERIOD_MAX_DAYS)
    throw validationError({ from: [`The period covers at most ${ANALYTICS_PERIOD_MAX_DAYS} days.`] });
  return { from, to };
}

type DayRow = TAnalyticsCounts & { day: string };
type QuestionRow = { question: string; asks: number | string; unanswered: number | string };
type SourceRow = {
  title: string;
  url: string | null;
  cited: number | string;
  rated_up: number | string;
  rated_down: number | string;
};

/**
 * The agent's analytics for a period, read from the daily roll-ups after the workspace's
 * changed days are recomputed (so today is always current). Another workspace's agent is 404.
 */
export async function getAgentAnalytics(scope: AgentScope, query: TAnalyticsQuery): Promise<TAgentAnalytics> {
  const period = analyticsPeriodOf(query, scope.clock.now());
  await requireAgent(scope.db, scope.workspaceId, scope.agentId);
  await refreshAnalytics(scope.db, scope.workspaceId);
  const where = sql`workspace_id = ${scope.workspaceId} and agent_id = ${scope.agentId}
    and day >= ${period.from}::date and day <= ${period.to}::date`;
  const [days, questions, sources] = await Promise.all([
    sql<DayRow>`select to_char(day, 'YYYY-MM-DD') as day, conversations, visitor_messages, questions,
        bot_only, handed_off, unanswered, rated_up, rated_down
      from analytics_daily where ${where}`.execute(scope.db),
    sql<QuestionRow>`select min(question) as question, sum(asks) as asks, sum(unanswered) as unanswered
      from analytics_question_daily where ${where}
      group by question_key order by sum(asks) desc, question_key limit ${ANALYTICS_TOP_MAX}`.execute(
      scope.db,
    ),
    sql<SourceRow>`select max(title) as title, max(url) as url, sum(cited) as cited,
        sum(rated_up) as rated_up, sum(rated_down) as rated_down
      from analytics_source_daily where ${where}
      group by source_key order by sum(cited) desc, source_key limit ${ANALYTICS_TOP_MAX}`.execute(scope.db),
  ]);
  return analyticsOf(period, days.rows, questions.rows, sources.rows);
}

/**
 * The same numbers computed straight from the conversations of the period, without the
 * roll-ups: what tests compare the roll-ups with, and what the bench times beside them.
 */
export async function getAgentAnalyticsByFullScan(
  scope: AgentScope,
  query: TAnalyticsQuery,
): Promise<TAgentAnalytics> {
  const period = analyticsPeriodOf(query, scope.clock.now());
  await requireAgent(scope.db, scope.workspaceId, scope.agentId);
  const filter = conversationsBetween(
    scope.workspaceId,
    `${period.from}T00:00:00Z`,
    `${nextDay(period.to)}T00:00:00Z`,
    scope.agentId,
  );
  const grouped = (inner: RawBuilder<unknown>) => sql`(${inner})`;
  const [days, questions, sources] = await Promise.all([
    sql<DayRow>`select to_char(d.day, 'YYYY-MM-DD') as day, d.conversations, d.visitor_messages, d.questions,
        d.bot_only, d.handed_off, d.unanswered, d.rated_up, d.rated_down
      from ${grouped(dailyCounts(filter))} d`.execute(scope.db),
    sql<QuestionRow>`select min(q.question) as question, sum(q.asks) as asks, sum(q.unanswered) as unanswered
      from ${grouped(questionCounts(filter))} q
      group by q.question_key order by sum(q.asks) desc, q.question_key limit ${ANALYTICS_TOP_MAX}`.execute(
      scope.db,
    ),
    sql<SourceRow>`select max(s.title) as title, max(s.url) as url, sum(s.cited) as cited,
        sum(s.rated_up) as rated_up, sum(s.rated_down) as rated_down
      from ${grouped(sourceCounts(filter))} s
      group by s.source_key order by sum(s.cited) desc, s.source_key limit ${ANALYTICS_TOP_MAX}`.execute(
      scope.db,
    ),
  ]);
  return analyticsOf(period, days.rows, questions.rows, sources.rows);
}

const COUNT_KEYS = [
  'conversations',
  'visitor_messages',
  'questions',
  'bot_only',
  'handed_off',
  'unanswered',
  'rated_up',
  'rated_down',
] as const satisfies ReadonlyArray<keyof TAnalyticsCounts>;

function zeroCounts(): TAnalyticsCounts {
  return {
    conversations: 0,
    visitor_messages: 0,
    questions: 0,
    bot_only: 0,
    handed_off: 0,
    unanswered: 0,
    rated_up: 0,
    rated_down: 0,
  };
}

function rate(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.min(1, part / whole);
}

function analyticsOf(
  period: AnalyticsPeriod,
  dayRows: readonly DayRow[],
  questionRows: readonly QuestionRow[],
  sourceRows: readonly SourceRow[],
): TAgentAnalytics {
  const byDay = new Map(dayRows.map((row) => [row.day, row]));
  const days: TAnalyticsDay[] = [];
  const sums = zeroCounts();
  for (let day = period.from; day <= period.to; day = nextDay(day)) {
    const row = byDay.get(day);
    const counts = zeroCounts();
    for (const key of COUNT_KEYS) {
      counts[key] = Number(row?.[key] ?? 0);
      sums[key] += counts[key];
    }
    days.push({ day, ...counts });
  }
  const totals: TAnalyticsTotals = {
    ...sums,
    deflection_rate: rate(sums.bot_only, sums.conversations),
    unanswered_rate: rate(sums.unanswered, sums.questions),
    satisfaction_rate: rate(sums.rated_up, sums.rated_up + sums.rated_down),
  };
  const topQuestions: TAnalyticsQuestion[] = questionRows.map((row) => ({
    question: row.question,
    asks: Number(row.asks),
    unanswered: Number(row.unanswered),
  }));
  const topSources: TAnalyticsSource[] = sourceRows.map((row) => ({
    title: row.title,
    url: row.url,
    cited: Number(row.cited),
    rated_up: Number(row.rated_up),
    rated_down: Number(row.rated_down),
  }));
  return { ...period, days, totals, top_questions: topQuestions, top_sources: topSources };
}

/** One CSV field, quoted; a leading `= + - @` (or tab/CR) is neutralised against formula injection. */
export function csvField(value: string | number): string {
  let text = String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replaceAll('"', '""')}"`;
}

/** The period's series as CSV (a header row, then one row per day), CRLF line ends (RFC 4180). */
export function analyticsCsv(analytics: TAgentAnalytics): string {
  const lines = [ANALYTICS_CSV_COLUMNS.map(csvField).join(',')];
  for (const day of analytics.days)
    lines.push([day.day, ...COUNT_KEYS.map((key) => day[key])].map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
