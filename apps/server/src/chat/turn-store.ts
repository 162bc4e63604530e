import type { TBlock, TCitation } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from '../db/schema.js';
import type { StoredBlock } from '../db/schema-conversations.js';
import { newId } from '../security/ids.js';
import { eventPreview, eventRow } from '../services/events/admin-events.js';
import type { WidgetCaller } from '../services/widget/widget-caller.js';
import type { AnswerSource } from './answer-context.js';

/** Outcome of a turn, stored with it. */
export type TurnOutcome = 'answered' | 'no_answer' | 'error';

/** A finished turn as the answer engine hands it over: the answer (when there is one) and how it went. */
export type FinishedTurn = {
  /** The answer message's id; null when no answer was given (the model failed). */
  messageId: string | null;
  answer: string;
  outcome: TurnOutcome;
  /** Who answered: the provider's label, or `offline`. */
  label: string;
  /** When the turn started and its first token went out (clock milliseconds). */
  started: number;
  firstTokenAt: number | null;
  citations?: TCitation[];
  blocks?: TBlock[];
  /** The operator's correction the answer was given from (its use is counted with the turn). */
  correctionId?: string | null;
  /** The answer is the team's saved correction, given verbatim (the widget says so, also in history). */
  fromTeam?: boolean;
  /** Retrieval found a source by words (not only by vector similarity); false: nothing above the floor. */
  fromText?: boolean;
};

/**
 * Why a finished turn is kept as a question for the operators: nothing found by words
 * (`no_match`) and/or the "I don't know" reply (`fallback`). A turn answered from a correction
 * or that failed is not kept.
 */
export function turnQuestionReasons(turn: FinishedTurn): Array<'no_match' | 'fallback'> {
  if (turn.correctionId || turn.outcome === 'error' || turn.messageId === null) return [];
  const reasons: Array<'no_match' | 'fallback'> = [];
  if (turn.fromText === false) reasons.push('no_match');
  if (turn.outcome === 'no_answer') reasons.push('fallback');
  return reasons;
}

/** Stores a finished turn; the engine awaits it before `done` is sent. */
export type TurnRecorder = (turn: FinishedTurn) => Promise<void>;

/**
 * The widget's recorder: the answer message (when there is one) in the visitor's conversation
 * and the turn behind it (question, answer, chunks and scores, latency) in `answer_turns`, as
 * one statement: the message, the conversation's activity and the turn are written together or
 * not at all, and the store is held for one round trip rather than a transaction's five.
 */
export function widgetTurnRecorder(options: {
  db: Kysely<DB>;
  caller: WidgetCaller;
  question: string;
  questionMessageId: string;
  sources: readonly AnswerSource[];
  clock: Clock;
}): TurnRecorder {
  const { caller } = options;
  return async (turn) => {
    const now = options.clock.now();
    const answerTurn = {
      id: newId(),
      workspace_id: caller.workspaceId,
      agent_id: caller.agent.id,
      conversation_id: caller.conversation.id,
      question_message_id: options.questionMessageId,
      answer_message_id: turn.messageId,
      question: options.question,
      answer: turn.answer,
      retrieved: JSON.stringify(
        options.sources.map((source) => ({ chunk_id: source.hit.chunk_id, score: source.hit.score })),
      ),
      outcome: turn.outcome,
      provider: turn.label,
      latency_ms: Math.max(0, now.getTime() - turn.started),
      first_token_ms: turn.firstTokenAt === null ? null : Math.max(0, turn.firstTokenAt - turn.started),
    };
    if (!turn.messageId) {
      await options.db.insertInto('answer_turns').values(answerTurn).execute();
      return;
    }
    const blocks: StoredBlock[] = turn.blocks ?? [];
    const message = {
      id: turn.messageId,
      workspace_id: caller.workspaceId,
      conversation_id: caller.conversation.id,
      role: 'assistant' as const,
      content: turn.answer,
      citations: JSON.stringify(turn.citations ?? []),
      blocks: JSON.stringify(blocks),
      from_team: turn.fromTeam === true,
      created_at: now,
    };
    const reasons = turnQuestionReasons(turn);
    const correctionId = turn.correctionId ?? null;
    // Data-modifying CTEs run exactly once whether or not the statement reads them.
    const statement = options.db
      .with('message', (db) => db.insertInto('messages').values(message).returning('id'))
      .with('activity', (db) =>
        db
          .updateTable('conversations')
          .set({ last_message_at: now, updated_at: now })
          .where('id', '=', caller.conversation.id)
          .returning('id'),
      )
      // Operators' streams learn of the stored answer with it (the insert's trigger notifies).
      .with('admin_event', (db) =>
        db
          .insertInto('admin_events')
          .values(
            eventRow(caller.workspaceId, {
              type: 'message.created',
              at: now.toISOString(),
              conversation_id: caller.conversation.id,
              agent_id: caller.agent.id,
              message_id: message.id,
              role: 'assistant',
              preview: eventPreview(message.content),
              author_user_id: null,
            }),
          )
          .returning('id'),
      )
      // The correction's use, counted atomically with the turn it answered.
      .with('correction_use', (db) =>
        db
          .updateTable('answer_corrections')
          .set((eb) => ({ use_count: eb('use_count', '+', 1), last_used_at: now }))
          .where('workspace_id', '=', caller.workspaceId)
          .where('agent_id', '=', caller.agent.id)
          .where('id', '=', correctionId ?? '')
          .returning('id'),
      );
    if (reasons.length === 0) {
      await statement.insertInto('answer_turns').values(answerTurn).execute();
      return;
    }
    // A turn that found nothing or said "I don't know" is kept for the operators, with its chunks.
    await statement
      .with('question', (db) =>
        db
          .insertInto('agent_questions')
          .values({
            id: newId(),
            workspace_id: caller.workspaceId,
            agent_id: caller.agent.id,
            conversation_id: caller.conversation.id,
            turn_id: answerTurn.id,
            question_message_id: options.questionMessageId,
            answer_message_id: turn.messageId,
            question: options.question,
            answer: turn.answer,
            reasons,
            retrieved: answerTurn.retrieved,
            created_at: now,
            updated_at: now,
          })
          .returning('id'),
      )
      .insertInto('answer_turns')
      .values(answerTurn)
      .execute();
  };
}
