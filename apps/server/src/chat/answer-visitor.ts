import type { TStreamFrame, TWidgetAnswer } from '@service/contract';
import { textSearchConfig } from '../retrieval/text-search-config.js';
import { createSecretKeyring } from '../security/secret-keyring.js';
import { activeLlmKeyRow, openActiveLlmKey } from '../services/accounts/llm-keys.js';
import { countRefusedMessage } from '../services/billing/plans.js';
import { isBotSilenced } from '../services/conversations/operator.js';
import { correctionMatchSql, parseCorrectionMatch } from '../services/quality/correction-match.js';
import { requestHuman } from '../services/widget/widget-actions.js';
import { storedWidgetFeatures, type WidgetCaller } from '../services/widget/widget-caller.js';
import { recordVisitorQuestion } from '../services/widget/widget-conversation.js';
import { resolveLanguage } from '../services/widget/widget-language.js';
import {
  type AnswerContext,
  agentCouponLists,
  agentCurrency,
  couponsFromLists,
  currencyCode,
  loadAnswerSources,
} from './answer-context.js';
import { answerQuestion } from './answer-engine.js';
import type { ChatDeps } from './chat-deps.js';
import { readVisitorIntent } from './compose/visitor-intent.js';
import { fixedVisitorReply } from './compose/visitor-reply.js';
import { messageLimitReply } from './fixed-replies.js';
import { providerForKey } from './llm-providers.js';
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
  // The question is stored, and the history, the workspace's model key, the agent's coupons and
  // the closest correction read, in one statement; retrieval is sent beside it (a silenced
  // conversation needs neither). The text-search configuration is cached after the first read.
  const config = await textSearchConfig(db, caller.agent.language_default);
  const recorded = recordVisitorQuestion(db, caller, options.message, clock.now(), {
    llm_key: activeLlmKeyRow(caller.workspaceId),
    coupon_lists: agentCouponLists(caller.agent.id),
    currency: agentCurrency(caller.workspaceId, caller.agent.id),
    correction: correctionMatchSql({
      workspaceId: caller.workspaceId,
      agentId: caller.agent.id,
      question: options.message,
      config,
      features: deps.features,
      onlyMatching: true,
    }),
  });
  const language = resolveLanguage(
    caller.visitorLocale ?? undefined,
    caller.agent.language_default,
    undefined,
  );
  // Over the plan's monthly message limit: a polite answer, never an error; nothing was stored.
  const refuse = async (): Promise<TWidgetAnswer> => {
    await countRefusedMessage(db, caller.workspaceId, clock.now());
    const text = messageLimitReply(language);
    options.emit({ event: 'done', data: { message_id: null, text, citations: [], limit_reached: true } });
    const conversationId = caller.conversation.id;
    return {
      conversation_id: conversationId,
      message_id: null,
      text,
      citations: [],
      blocks: [],
      limit_reached: true,
    };
  };
  if (isBotSilenced(caller.conversation)) {
    if (!(await recorded).accepted) return refuse();
    options.emit({
      event: 'done',
      data: { message_id: null, text: '', citations: [], held_by_operator: true },
    });
    return { conversation_id: caller.conversation.id, message_id: null, text: '', citations: [], blocks: [] };
  }
  // A request for a person needs no retrieval (small talk does: a model may answer it).
  const intent = readVisitorIntent(options.message, language);
  const retrieved =
    intent?.kind === 'human'
      ? Promise.resolve([])
      : loadAnswerSources({
          db,
          agent: caller.agent,
          question: options.message,
          features: deps.features,
          embeddings: deps.embeddings,
          onError: (error, what) => log.warn({ err: error }, what),
          baseUrl: options.baseUrl,
        });
  const [question, sources] = await Promise.all([recorded, retrieved]);
  if (!question.accepted) return refuse();
  const keys = createSecretKeyring(deps.config.appKey, deps.config.appKeyPrevious);
  const provider = providerForKey(
    deps.config,
    openActiveLlmKey(keys, question.extra.llm_key, caller.workspaceId),
  );
  const context: AnswerContext = {
    sources,
    coupons: couponsFromLists(question.extra.coupon_lists, clock.now()),
    currency: currencyCode(question.extra.currency),
  };
  const questionId = question.id;
  const correction = parseCorrectionMatch(question.extra.correction);
  const history = question.history;
  // Offline there is no model to call the order tool, so order questions are recognised here.
  const offlineReply =
    provider === null && correction === null && intent === null
      ? await offlineOrderReply({
          deps,
          caller,
          question: options.message,
          language,
          onFailure: (reason) => log.warn({ reason }, 'order lookup failed'),
        })
      : null;
  const features = storedWidgetFeatures(caller.agent);
  const fixedReply = await fixedVisitorReply({
    intent,
    language,
    offline: provider === null,
    humanAvailable: features.human,
    requestHuman: () => requestHuman(db, caller, clock.now(), deps.handoff),
  });
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
    correction,
    fixedReply,
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
