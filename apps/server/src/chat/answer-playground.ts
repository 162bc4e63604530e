import type { TPlaygroundChunk, TPlaygroundFrame, TPlaygroundTurn } from '@service/contract';
import type { Kysely } from 'kysely';
import type { AgentRow, DB } from '../db/schema.js';
import { notFound } from '../errors/app-error.js';
import type { ChatMessage } from '../llm/llm-provider.js';
import { textSearchConfig } from '../retrieval/text-search-config.js';
import { correctionMatchSql, parseCorrectionMatch } from '../services/quality/correction-match.js';
import { storedWidgetFeatures } from '../services/widget/widget-caller.js';
import { HISTORY_MESSAGE_CHARS } from '../services/widget/widget-conversation.js';
import { resolveLanguage } from '../services/widget/widget-language.js';
import {
  type AnswerContext,
  type AnswerSource,
  agentCouponLists,
  agentCurrency,
  couponsFromLists,
  currencyCode,
  loadAnswerSources,
} from './answer-context.js';
import { answerQuestion } from './answer-engine.js';
import type { ChatDeps } from './chat-deps.js';
import { resolveProvider } from './llm-providers.js';

/**
 * The conversation id the engine is given for a playground answer. It never reaches the wire
 * (the playground's `start` frame names no conversation) nor the store (nothing is recorded).
 */
const NO_CONVERSATION = 'playground';

/**
 * Reads the agent a playground question is for, within the workspace; another workspace's
 * agent (or none) is a 404. Called before the stream opens, so a refusal is a plain answer.
 * An agent need not be published: the owner tries it before visitors can.
 */
export async function playgroundAgent(
  db: Kysely<DB>,
  workspaceId: string,
  agentId: string,
): Promise<AgentRow> {
  const agent = await db
    .selectFrom('agents')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', agentId)
    .executeTakeFirst();
  if (!agent) throw notFound();
  return agent;
}

/**
 * Answers a question in the console's playground through the widget's answer path (the same
 * retrieval, prompt, model or offline responder, citations and blocks), streaming the widget's
 * frames plus a `trace` of the chunks retrieval gave the answer, each with its per-retriever
 * ranks and fused score. Nothing is stored: no visitor, conversation, message or answer turn,
 * so no visitor list, count, lead or webhook ever sees it. The history is the console's own
 * (earlier turns it kept), clipped as the widget clips stored history. No order tool: the
 * playground has no verified shopper.
 */
export async function answerPlayground(options: {
  deps: ChatDeps;
  agent: AgentRow;
  question: string;
  history: readonly TPlaygroundTurn[];
  emit: (frame: TPlaygroundFrame) => void;
  signal?: AbortSignal;
  /** Where visitors reach the service: the base of its own pages' citation URLs. */
  baseUrl?: string | undefined;
}): Promise<void> {
  const { deps, agent } = options;
  const { db, log, clock } = deps;
  const language = resolveLanguage(undefined, agent.language_default, undefined);
  const config = await textSearchConfig(db, agent.language_default);
  const [sources, couponLists, provider, correction] = await Promise.all([
    loadAnswerSources({
      db,
      agent,
      question: options.question,
      features: deps.features,
      embeddings: deps.embeddings,
      onError: (error, what) => log.warn({ err: error }, what),
      baseUrl: options.baseUrl,
    }),
    db
      .selectNoFrom([
        agentCouponLists(agent.id).as('lists'),
        agentCurrency(agent.workspace_id, agent.id).as('currency'),
      ])
      .executeTakeFirstOrThrow(),
    resolveProvider({ db, config: deps.config, workspaceId: agent.workspace_id }),
    db
      .selectNoFrom(
        correctionMatchSql({
          workspaceId: agent.workspace_id,
          agentId: agent.id,
          question: options.question,
          config,
          features: deps.features,
          onlyMatching: true,
        }).as('correction'),
      )
      .executeTakeFirstOrThrow()
      .then((row) => parseCorrectionMatch(row.correction)),
  ]);
  const context: AnswerContext = {
    sources,
    coupons: couponsFromLists(couponLists.lists, clock.now()),
    currency: currencyCode(couponLists.currency),
  };
  const chunks = context.sources.map(traceChunk);
  const features = storedWidgetFeatures(agent);
  await answerQuestion({
    conversationId: NO_CONVERSATION,
    recordTurn: null,
    question: options.question,
    language,
    context,
    provider,
    features: {
      human: features.human,
      coupons: agent.site_type === 'ecommerce' && context.coupons.length > 0,
    },
    offlineReply: null,
    correction,
    clock,
    ...(options.signal ? { signal: options.signal } : {}),
    emit: (frame) => {
      if (frame.event === 'start') {
        options.emit({ event: 'start', data: { message_id: frame.data.message_id } });
        options.emit({ event: 'trace', data: { chunks, correction } });
      } else if (frame.event === 'done') {
        const { message_id, text, citations, from_team } = frame.data;
        const marker = from_team ? { from_team } : {};
        options.emit({ event: 'done', data: { message_id, text, citations, ...marker } });
      } else {
        options.emit(frame);
      }
    },
    model: {
      agentName: agent.name,
      agentPrompt: agent.system_prompt,
      shopperVerified: false,
      history: options.history.map(
        (turn): ChatMessage => ({
          role: turn.role === 'visitor' ? 'user' : 'assistant',
          content: turn.content.slice(0, HISTORY_MESSAGE_CHARS),
        }),
      ),
      tools: [],
      now: clock.now(),
    },
  });
}

/** A source as the trace shows it: the search hit (url made absolute as cited) and its number. */
function traceChunk(source: AnswerSource): TPlaygroundChunk {
  return { id: source.id, ...source.hit };
}
