import type { TCorrectionMatch } from '@service/contract';
import { answeringLabel } from '../llm/failover.js';
import type { ChatMessage, LlmProvider, ToolCall, ToolSpec } from '../llm/llm-provider.js';
import { assembleSystemPrompt } from '../llm/prompt.js';
import type { AnswerContext } from './answer-context.js';
import { correctionPreamble } from './correction-prompt.js';

/** A tool the model may call during a turn, and how to run it (returns the text the model reads). */
export type ChatTool = { spec: ToolSpec; run(argumentsJson: string): Promise<string> };

/** Rounds of tool calls one answer may take before the model must answer in words. */
const MAX_TOOL_ROUNDS = 2;

/** Everything a model turn needs. */
export type ModelTurnInput = {
  provider: LlmProvider;
  context: AnswerContext;
  question: string;
  language: string;
  agentName: string;
  agentPrompt: string;
  shopperVerified: boolean;
  /** Earlier messages of the conversation, oldest first (visitor → user; assistant and operator → assistant). */
  history: readonly ChatMessage[];
  tools: readonly ChatTool[];
  now: Date;
  /** An operator's correction close to the question: first in the prompt, binding. */
  correction?: TCorrectionMatch | null;
  onToken(text: string): void;
  signal?: AbortSignal;
};

/** A finished model turn, or the text streamed before it failed. */
export type ModelTurnResult = { ok: true; text: string; label: string } | { ok: false; partial: string };

/**
 * Runs the model over the assembled prompt, streaming its words through `onToken`, and
 * answering its tool calls (at most two rounds; an unknown tool gets an error result).
 */
export async function runModelTurn(input: ModelTurnInput): Promise<ModelTurnResult> {
  const assembled = assembleSystemPrompt({
    agentName: input.agentName,
    agentPrompt: input.agentPrompt,
    language: input.language,
    sources: input.context.sources.map((source) => ({
      id: source.id,
      url: source.hit.url,
      title: source.hit.title,
      content: source.hit.content,
    })),
    coupons: input.context.coupons,
    shopper: { verified: input.shopperVerified },
    now: input.now,
  });
  const system = input.correction ? `${correctionPreamble(input.correction)}\n\n${assembled}` : assembled;
  const messages: ChatMessage[] = [...input.history, { role: 'user', content: input.question }];
  let text = '';
  let label = input.provider.label;
  try {
    for (let round = 0; ; round++) {
      const offerTools = round < MAX_TOOL_ROUNDS && input.tools.length > 0;
      let calls: readonly ToolCall[] = [];
      let roundText = '';
      const stream = input.provider.stream({
        system,
        messages,
        ...(offerTools ? { tools: input.tools.map((tool) => tool.spec) } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      for await (const event of stream) {
        if (event.type === 'token') {
          roundText += event.text;
          text += event.text;
          input.onToken(event.text);
        } else if (event.type === 'tool_calls') {
          calls = event.calls;
        }
      }
      label = answeringLabel(stream, input.provider);
      if (calls.length === 0 || !offerTools) break;
      messages.push({ role: 'assistant', content: roundText, toolCalls: calls });
      for (const call of calls) {
        const tool = input.tools.find((candidate) => candidate.spec.name === call.name);
        const content = tool
          ? await tool.run(call.arguments)
          : JSON.stringify({ error: `Unknown tool ${call.name}.` });
        messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
      }
    }
  } catch {
    return { ok: false, partial: text };
  }
  return { ok: true, text, label };
}
