import type { ColumnType, Generated } from 'kysely';

/** A UTC calendar day (`date`): pg returns it as a Date at UTC midnight. */
type Day = ColumnType<Date, string, string>;

/** Kysely types of the analytics roll-ups; they mirror `migrations/0028_analytics_rollups.sql`. */
export type AnalyticsDirtyDaysTable = {
  workspace_id: string;
  day: Day;
};

/** Per workspace, agent and UTC day (the day each conversation started). */
export type AnalyticsDailyTable = {
  workspace_id: string;
  agent_id: string;
  day: Day;
  conversations: Generated<number>;
  visitor_messages: Generated<number>;
  questions: Generated<number>;
  bot_only: Generated<number>;
  handed_off: Generated<number>;
  unanswered: Generated<number>;
  rated_up: Generated<number>;
  rated_down: Generated<number>;
};

/** Per cited source and day: answers citing it, and their conversations' ratings. */
export type AnalyticsSourceDailyTable = {
  workspace_id: string;
  agent_id: string;
  day: Day;
  source_key: string;
  title: string;
  url: string | null;
  cited: Generated<number>;
  rated_up: Generated<number>;
  rated_down: Generated<number>;
};

/** Per normalised question text and day: how often it was asked, how often left unanswered. */
export type AnalyticsQuestionDailyTable = {
  workspace_id: string;
  agent_id: string;
  day: Day;
  question_key: string;
  question: string;
  asks: Generated<number>;
  unanswered: Generated<number>;
};

/** The roll-up tables as Kysely sees them (merged into `DB`). */
export type AnalyticsTables = {
  analytics_dirty_days: AnalyticsDirtyDaysTable;
  analytics_daily: AnalyticsDailyTable;
  analytics_source_daily: AnalyticsSourceDailyTable;
  analytics_question_daily: AnalyticsQuestionDailyTable;
};
