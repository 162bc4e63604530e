import type { TStreamFrame, TWidgetAnswer } from '@service/contract';
import { isBotSilenced } from '../services/conversations/operator.js';
import { storedWidgetFeatures, type WidgetCaller } from '../services/widget/widget-caller.js';
import { modelHistory, recordVisitorMessage } from '../services/widget/widget-conversation.js';
import { resolveLanguage } from '../services/widget/widget-language.js';
import { loadAnswerContext } from './answer-context.js';
import { answerQuestion } from './answer-engine.js';
import type { ChatDeps } from './chat-deps.js';
import { resolveProvider } from './llm-providers.js';
import { offlineOrderReply } from './offline-orders.js';
import { orderTools } from './order-tool.js';
import { widgetTurnRecorder } from './turn-store.js';

/**
 * The whole of `POST /v1/widget/messages[/stream]` past auth: stores the visitor's message,
 * stays silent while an operator holds the conversation, otherwise retrieves, answers and
 * stores the turn, emitting frames as it goes.
 */
export async function answerVisitor(options: {
  deps: ChatDeps;
  caller: WidgetCaller;
  message: string;
  emit: (frame: TStreamFrame) => void;
  signal?: AbortSignal;
  /** Where the visitor reached the service: the base of its own pages' citation URLs. */
  baseUrl?: string | undefined;
}): Promise<TWidgetAnswer> {
  const { deps, caller } = options;
  const { db, log, clock } = deps;
  const questionId = await recordVisitorMessage(db, caller, options.message, clock.now());
  if (isBotSilenced(caller.conversation)) {
    options.emit({
      event: 'done',
      data: { message_id: null, text: '', citations: [], held_by_operator: true },
    });
    return { conversation_id: caller.conversation.id, message_id: null, text: '', citations: [], blocks: [] };
  }
  const language = resolveLanguage(
    caller.visitorLocale ?? undefined,
    caller.agent.language_default,
    undefined,
  );
  const [context, provider, history] = await Promise.all([
    loadAnswerContext({
      db,
      agent: caller.agent,
      question: options.message,
      features: deps.features,
      embeddings: deps.embeddings,
      now: clock.now(),
      onError: (error, what) => log.warn({ err: error }, what),
      baseUrl: options.baseUrl,
    }),
    resolveProvider({ db, config: deps.config, workspaceId: caller.workspaceId }),
    modelHistory(db, caller, questionId),
  ]);
  // Offline there is no model to call the order tool, so order questions are recognised here.
  const offlineReply =
    provider === null
      ? await offlineOrderReply({
          deps,
          caller,
          question: options.message,
          language,
          onFailure: (reason) => log.warn({ reason }, 'order lookup failed'),
        })
      : null;
  const features = storedWidgetFeatures(caller.agent);
  return answerQuestion({
    conversationId: caller.conversation.id,
    recordTurn: widgetTurnRecorder({
      db,
      caller,
      question: options.message,
      questionMessageId: questionId,
      sources: context.sources,
      clock,
    }),
    question: options.message,
    language,
    context,
    provider,
    features: {
      human: features.human,
      coupons: caller.agent.site_type === 'ecommerce' && context.coupons.length > 0,
    },
    offlineReply,
    emit: options.emit,
    clock,
    ...(options.signal ? { signal: options.signal } : {}),
    model: {
      agentName: caller.agent.name,
      agentPrompt: caller.agent.system_prompt,
      shopperVerified: caller.conversation.shopper_verified_at !== null,
      history,
      tools: orderTools({ deps, caller }),
      now: clock.now(),
    },
  });
}
