import type { TBlock, TCitation, TStreamFrame, TWidgetAnswer } from '@service/contract';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { DB } from '../db/schema.js';
import type { StoredBlock } from '../db/schema-conversations.js';
import type { LlmProvider } from '../llm/llm-provider.js';
import { newId } from '../security/ids.js';
import type { WidgetCaller } from '../services/widget/widget-caller.js';
import { answerBlocks, extractCitations } from './answer-blocks.js';
import type { AnswerContext } from './answer-context.js';
import { ANSWER_FAILED_MESSAGE, noAnswerReply } from './fixed-replies.js';
import { type ModelTurnInput, runModelTurn } from './model-turn.js';
import { composeOfflineAnswer } from './offline-answer.js';

/** Receives the stream's frames in order. */
export type FrameSink = (frame: TStreamFrame) => void;

/** What one answer needs: the store, the grounding, the model (null: offline), how to emit. */
export type AnswerInput = {
  db: Kysely<DB>;
  caller: WidgetCaller;
  question: string;
  language: string;
  context: AnswerContext;
  provider: LlmProvider | null;
  features: { human: boolean; coupons: boolean };
  /**
   * Offline only: a reply decided before retrieval (an order question), streamed as the answer;
   * `answered` false (e.g. "please sign in") offers a human after it, as "I don't know" does.
   */
  offlineReply?: { text: string; answered: boolean } | null;
  emit: FrameSink;
  clock: Clock;
  signal?: AbortSignal;
  /** Model-only inputs: history, tools. */
  model: Omit<ModelTurnInput, 'provider' | 'context' | 'question' | 'language' | 'onToken' | 'signal'>;
};

/** Outcome of a turn, stored with it. */
type Outcome = 'answered' | 'no_answer' | 'error';

/** Words per streamed token frame when the offline responder "streams" its extract. */
const OFFLINE_WORDS_PER_FRAME = 4;

/**
 * Answers one visitor message: `start`, then the answer as `token` frames, its `block`s, and
 * `done` with citations (or `error`). With a model, the answer comes from it (grounded by the
 * assembled prompt, with the order-lookup tool for a verified shopper); offline, an extract of
 * the best passages, cited, or an honest "I don't know". Never an invented answer. The turn
 * (question, answer, chunks and scores behind it, latency) is stored before `done` is sent.
 */
export async function answerQuestion(input: AnswerInput): Promise<TWidgetAnswer> {
  const { caller, emit } = input;
  const started = input.clock.now().getTime();
  const messageId = newId();
  emit({ event: 'start', data: { conversation_id: caller.conversation.id, message_id: messageId } });
  let firstTokenAt: number | null = null;
  const onToken = (text: string) => {
    if (text === '') return;
    firstTokenAt ??= input.clock.now().getTime();
    emit({ event: 'token', data: { t: text } });
  };

  let text: string;
  let outcome: Outcome;
  let citations: TCitation[];
  let label = 'offline';
  if (input.provider) {
    label = input.provider.label;
    const result = await runModelTurn({
      ...input.model,
      provider: input.provider,
      context: input.context,
      question: input.question,
      language: input.language,
      onToken,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (!result.ok) {
      await storeTurn(input, {
        messageId: null,
        answer: result.partial,
        outcome: 'error',
        label,
        started,
        firstTokenAt,
      });
      emit({ event: 'error', data: { code: 'answer_failed', message: ANSWER_FAILED_MESSAGE } });
      return {
        conversation_id: caller.conversation.id,
        message_id: null,
        text: '',
        citations: [],
        blocks: [],
      };
    }
    label = result.label;
    text = result.text;
    citations = extractCitations(text, input.context.sources);
    outcome = text.trim() === '' ? 'no_answer' : 'answered';
    if (outcome === 'no_answer') {
      text = noAnswerReply(input.language, input.features.human);
      onToken(text);
    }
  } else {
    const reply = input.offlineReply ?? null;
    const offline = reply
      ? { text: reply.text }
      : composeOfflineAnswer({
          question: input.question,
          language: input.language,
          passages: input.context.sources.map((source) => ({
            id: source.id,
            title: source.hit.title,
            url: source.hit.url,
            content: source.hit.content,
            fromText: source.fromText,
          })),
        });
    outcome = offline && reply?.answered !== false ? 'answered' : 'no_answer';
    text = offline ? offline.text : noAnswerReply(input.language, input.features.human);
    const words = text.split(/(?<=\s)/);
    for (let i = 0; i < words.length; i += OFFLINE_WORDS_PER_FRAME) {
      onToken(words.slice(i, i + OFFLINE_WORDS_PER_FRAME).join(''));
    }
    citations = extractCitations(text, input.context.sources);
  }

  const blocks = answerBlocks({
    text,
    citations,
    sources: input.context.sources,
    coupons: input.context.coupons,
    hasAnswer: outcome === 'answered',
    canEscalate: input.features.human,
    couponsEnabled: input.features.coupons,
  });
  for (const block of blocks) emit({ event: 'block', data: block });
  await storeTurn(input, {
    messageId,
    answer: text,
    outcome,
    label,
    started,
    firstTokenAt,
    citations,
    blocks,
  });
  emit({ event: 'done', data: { message_id: messageId, text, citations } });
  return { conversation_id: caller.conversation.id, message_id: messageId, text, citations, blocks };
}

/**
 * Stores the answer (when there is one) and the turn behind it, as one statement (the message,
 * the conversation's activity and the turn are written together or not at all, and the store
 * is held for one round trip rather than a transaction's five).
 */
async function storeTurn(
  input: AnswerInput,
  turn: {
    messageId: string | null;
    answer: string;
    outcome: Outcome;
    label: string;
    started: number;
    firstTokenAt: number | null;
    citations?: TCitation[];
    blocks?: TBlock[];
  },
): Promise<void> {
  const { caller } = input;
  const now = input.clock.now();
  const answerTurn = {
    id: newId(),
    workspace_id: caller.workspaceId,
    agent_id: caller.agent.id,
    conversation_id: caller.conversation.id,
    question_message_id: input.model.questionMessageId,
    answer_message_id: turn.messageId,
    question: input.question,
    answer: turn.answer,
    retrieved: JSON.stringify(
      input.context.sources.map((source) => ({ chunk_id: source.hit.chunk_id, score: source.hit.score })),
    ),
    outcome: turn.outcome,
    provider: turn.label,
    latency_ms: Math.max(0, now.getTime() - turn.started),
    first_token_ms: turn.firstTokenAt === null ? null : Math.max(0, turn.firstTokenAt - turn.started),
  };
  if (!turn.messageId) {
    await input.db.insertInto('answer_turns').values(answerTurn).execute();
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
    created_at: now,
  };
  // Data-modifying CTEs run exactly once whether or not the statement reads them.
  await input.db
    .with('message', (db) => db.insertInto('messages').values(message).returning('id'))
    .with('activity', (db) =>
      db
        .updateTable('conversations')
        .set({ last_message_at: now, updated_at: now })
        .where('id', '=', caller.conversation.id)
        .returning('id'),
    )
    .insertInto('answer_turns')
    .values(answerTurn)
    .execute();
}
