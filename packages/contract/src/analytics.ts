import { z } from 'zod';
import { zText } from './text.js';

/** Longest period one analytics read covers, in days (both ends included). */
export const ANALYTICS_PERIOD_MAX_DAYS = 366;
/** Rows in the top questions and top sources lists. */
export const ANALYTICS_TOP_MAX = 10;

/** A UTC calendar day, `YYYY-MM-DD`. */
export const ZDay = z.iso.date();

/**
 * Query of `GET /api/v1/admin/agents/{id}/analytics` (and `.csv`): UTC days, both included;
 * `to` defaults to today, `from` to 29 days before `to`; at most 366 days.
 */
export const ZAnalyticsQuery = z.strictObject({ from: ZDay.optional(), to: ZDay.optional() });
export type TAnalyticsQuery = z.infer<typeof ZAnalyticsQuery>;

const count = z.number().int().nonnegative();

/** The counts of one day or of the whole period (each conversation counts on the day it started). */
export const ZAnalyticsCounts = z.object({
  conversations: count,
  visitor_messages: count,
  /** Answer turns: questions the bot answered or tried to. */
  questions: count,
  /** Conversations the bot answered with no human requested (deflected). */
  bot_only: count,
  /** Conversations where the visitor asked for a human. */
  handed_off: count,
  /** Questions with nothing found or the "I don't know" reply (no_match, fallback). */
  unanswered: count,
  rated_up: count,
  rated_down: count,
});
export type TAnalyticsCounts = z.infer<typeof ZAnalyticsCounts>;

/** One UTC day of the series. */
export const ZAnalyticsDay = ZAnalyticsCounts.extend({ day: ZDay });
export type TAnalyticsDay = z.infer<typeof ZAnalyticsDay>;

/** The period's totals and the rates derived from them (null when the denominator is 0). */
export const ZAnalyticsTotals = ZAnalyticsCounts.extend({
  /** bot_only / conversations. */
  deflection_rate: z.number().min(0).max(1).nullable(),
  /** unanswered / questions. */
  unanswered_rate: z.number().min(0).max(1).nullable(),
  /** rated_up / (rated_up + rated_down). */
  satisfaction_rate: z.number().min(0).max(1).nullable(),
});
export type TAnalyticsTotals = z.infer<typeof ZAnalyticsTotals>;

/** A question as visitors asked it, grouped by its normalised text. */
export const ZAnalyticsQuestion = z.object({ question: zText(), asks: count, unanswered: count });
export type TAnalyticsQuestion = z.infer<typeof ZAnalyticsQuestion>;

/** A cited source: answers that cited it, and the ratings of those answers' conversations. */
export const ZAnalyticsSource = z.object({
  title: zText(),
  url: zText().nullable(),
  cited: count,
  rated_up: count,
  rated_down: count,
});
export type TAnalyticsSource = z.infer<typeof ZAnalyticsSource>;

/** An agent's analytics for a period: one entry per day (zeros included), totals, top lists. */
export const ZAgentAnalytics = z.object({
  from: ZDay,
  to: ZDay,
  days: z.array(ZAnalyticsDay),
  totals: ZAnalyticsTotals,
  top_questions: z.array(ZAnalyticsQuestion),
  top_sources: z.array(ZAnalyticsSource),
});
export type TAgentAnalytics = z.infer<typeof ZAgentAnalytics>;

/** The CSV export's columns, in order (the series, one row per day). */
export const ANALYTICS_CSV_COLUMNS = [
  'day',
  'conversations',
  'visitor_messages',
  'questions',
  'bot_only',
  'handed_off',
  'unanswered',
  'rated_up',
  'rated_down',
] as const;
