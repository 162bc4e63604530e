import type { ColumnType, Generated, Selectable } from 'kysely';

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Jsonb<T> = ColumnType<T, string | undefined, string>;

/** Kysely types of the quality-loop tables; they mirror `migrations/0015_evaluations.sql`. */
export type GoldenItemsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  question: string;
  expected_urls: ColumnType<string[], string[] | undefined, string[]>;
  expected_document_ids: ColumnType<string[], string[] | undefined, string[]>;
  note: string | null;
  origin: Generated<'manual' | 'question' | 'correction'>;
  origin_id: string | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type EvaluationRunsTable = {
  id: string;
  workspace_id: string;
  agent_id: string;
  trigger: 'manual' | 'reindex';
  status: Generated<'queued' | 'running' | 'done' | 'failed'>;
  metrics: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  results: Jsonb<unknown[]>;
  misses: Jsonb<unknown[]>;
  regressions: Jsonb<unknown[]>;
  previous_run_id: string | null;
  error: string | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
};

export type GoldenItemRow = Selectable<GoldenItemsTable>;
export type EvaluationRunRow = Selectable<EvaluationRunsTable>;
