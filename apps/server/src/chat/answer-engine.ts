import type { TCitation, TCorrectionMatch, TStreamFrame, TWidgetAnswer } from '@service/contract';
import type { Clock } from '../clock.js';
import type { LlmProvider } from '../llm/llm-provider.js';
import { newId } from '../security/ids.js';
import { answerBlocks, extractCitations } from './answer-blocks.js';
import type { AnswerContext } from './answer-context.js';
import { ANSWER_FAILED_MESSAGE, noAnswerReply } from './fixed-replies.js';
import { type ModelTurnInput, runModelTurn } from './model-turn.js';
import { composeOfflineAnswer } from './offline-answer.js';
import type { TurnOutcome, TurnRecorder } from './turn-store.js';

/** Receives the stream's frames in order. */
export type FrameSink = (frame: TStreamFrame) => void;

/** What one answer needs: where it goes, the grounding, the model (null: offline), how to emit. */
export type AnswerInput = {
  /** The conversation the answer belongs to, named in `start` and in the result. */
  conversationId: string;
  /**
   * Stores the finished turn before `done` is sent (the widget's conversation); null: the turn
   * is not stored anywhere (the console's playground, never a visitor conversation).
   */
  recordTurn: TurnRecorder | null;
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
  /**
   * An operator's correction close enough to the question: offline it is the answer, verbatim,
   * marked `from_team`; with a model it comes first in the prompt, binding.
   */
  correction?: TCorrectionMatch | null;
  /**
   * With or without a model: a reply decided before retrieval (small talk, a request for a
   * person already passed on), streamed as the answer instead of the model's, the extract or a
   * correction.
   */
  fixedReply?: { text: string; answered: boolean } | null;
  emit: FrameSink;
  clock: Clock;
  signal?: AbortSignal;
  /** Model-only inputs: history, tools. */
  model: Omit<ModelTurnInput, 'provider' | 'context' | 'question' | 'language' | 'onToken' | 'signal'>;
};

/** Words per streamed token frame when the offline responder "streams" its extract. */
const OFFLINE_WORDS_PER_FRAME = 4;

/**
 * Answers one visitor message: `start`, then the answer as `token` frames, its `block`s, and
 * `done` with citations (or `error`). With a model, the answer comes from it (grounded by the
 * assembled prompt, with the order-lookup tool for a verified shopper); offline, an extract of
 * the best passages, cited, or an honest "I don't know". Never an invented answer. The turn
 * (answer, outcome, latency) goes to `recordTurn` before `done` is sent.
 */
export async function answerQuestion(input: AnswerInput): Promise<TWidgetAnswer> {
  const { conversationId, emit } = input;
  const storeTurn = input.recordTurn ?? (async () => {});
  const started = input.clock.now().getTime();
  const messageId = newId();
  emit({ event: 'start', data: { conversation_id: conversationId, message_id: messageId } });
  let firstTokenAt: number | null = null;
  const onToken = (text: string) => {
    if (text === '') return;
    firstTokenAt ??= input.clock.now().getTime();
    emit({ event: 'token', data: { t: text } });
  };

  let text: string;
  let outcome: TurnOutcome;
  let citations: TCitation[];
  let label = 'offline';
  const correction = input.correction ?? null;
  const fixedReply = input.fixedReply ?? null;
  // The correction branch (offline): the team's answer, verbatim, before anything retrieved.
  const fromTeam = fixedReply === null && correction !== null && input.provider === null;
  if (fromTeam) {
    text = correction.answer;
    outcome = 'answered';
    streamWords(text, onToken);
    citations = [];
  } else if (input.provider && fixedReply === null) {
    label = input.provider.label;
    const result = await runModelTurn({
      ...input.model,
      provider: input.provider,
      context: input.context,
      correction,
      question: input.question,
      language: input.language,
      onToken,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (!result.ok) {
      await storeTurn({
        messageId: null,
        answer: result.partial,
        outcome: 'error',
        label,
        started,
        firstTokenAt,
      });
      emit({ event: 'error', data: { code: 'answer_failed', message: ANSWER_FAILED_MESSAGE } });
      return {
        conversation_id: conversationId,
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
    const reply = fixedReply ?? input.offlineReply ?? null;
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
            documentId: source.hit.document_id,
            product: source.product,
            categories: source.categories ?? [],
          })),
        });
    outcome = offline && reply?.answered !== false ? 'answered' : 'no_answer';
    text = offline ? offline.text : noAnswerReply(input.language, input.features.human);
    streamWords(text, onToken);
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
    language: input.language,
    question: input.question,
    currency: input.context.currency ?? null,
  });
  for (const block of blocks) emit({ event: 'block', data: block });
  await storeTurn({
    messageId,
    answer: text,
    outcome,
    label,
    started,
    firstTokenAt,
    citations,
    blocks,
    correctionId: correction?.id ?? null,
    fromTeam,
    fromText: input.context.sources.some((source) => source.fromText),
  });
  const marker = fromTeam ? { from_team: true } : {};
  emit({ event: 'done', data: { message_id: messageId, text, citations, ...marker } });
  return { conversation_id: conversationId, message_id: messageId, text, citations, blocks, ...marker };
}

/** Streams an offline text as `token` frames of a few words each. */
function streamWords(text: string, onToken: (text: string) => void): void {
  const words = text.split(/(?<=\s)/);
  for (let i = 0; i < words.length; i += OFFLINE_WORDS_PER_FRAME) {
    onToken(words.slice(i, i + OFFLINE_WORDS_PER_FRAME).join(''));
  }
}
