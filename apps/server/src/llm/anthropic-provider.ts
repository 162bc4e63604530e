import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageParam,
  StopReason,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { type FetchLike, guardStream } from './guard-stream.js';
import type {
  ChatMessage,
  CompletionRequest,
  LlmEvent,
  LlmProvider,
  ToolCall,
  ToolSpec,
} from './llm-provider.js';

/** Anthropic's public API, used when no base URL is configured. */
export const ANTHROPIC_PUBLIC_BASE_URL = 'https://api.anthropic.com';
/** The model used when none is configured. */
export const ANTHROPIC_DEFAULT_MODEL = 'claude-3-5-haiku-latest';
/** Answer budget in tokens when the request names none (the Messages API requires one). */
const DEFAULT_MAX_TOKENS = 1024;

/** Settings of the Anthropic Messages API. */
export type AnthropicProviderOptions = {
  baseUrl?: string | undefined;
  apiKey: string;
  model?: string | undefined;
  timeoutMs: number;
  fetch?: FetchLike | undefined;
};

/**
 * A provider over `POST {base}/v1/messages` with `stream: true`: the system prompt travels in
 * `system`, text deltas are yielded as they come, and each `tool_use` block's `input_json_delta`
 * fragments are joined and yielded once, complete, before `end`. No retries; every failure is an `LlmError`.
 */
export function createAnthropicProvider(options: AnthropicProviderOptions): LlmProvider {
  const model = options.model ?? ANTHROPIC_DEFAULT_MODEL;
  const client = new Anthropic({
    apiKey: options.apiKey,
    // Explicit, so ANTHROPIC_BASE_URL in the environment changes nothing.
    baseURL: options.baseUrl ?? ANTHROPIC_PUBLIC_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const label = `anthropic:${model}`;
  return {
    label,
    stream(request: CompletionRequest): AsyncIterable<LlmEvent> {
      return guardStream(label, options.timeoutMs, request, async function* ({ signal, touch }) {
        const stream = await client.messages.create(
          {
            model,
            stream: true,
            max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
            system: request.system,
            messages: toAnthropicMessages(request.messages),
            ...(request.tools && request.tools.length > 0
              ? { tools: request.tools.map(toAnthropicTool) }
              : {}),
          },
          { signal },
        );
        const blocks = new Map<number, ToolCall>();
        let stopReason: StopReason | null = null;
        let stopped = false;
        for await (const event of stream) {
          touch();
          if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
            const block = event.content_block;
            blocks.set(event.index, { id: block.id, name: block.name, arguments: '' });
          } else if (event.type === 'content_block_delta') {
            if (event.delta.type === 'text_delta' && event.delta.text) {
              yield { type: 'token', text: event.delta.text };
            } else if (event.delta.type === 'input_json_delta') {
              const block = blocks.get(event.index);
              if (block) block.arguments += event.delta.partial_json;
            }
          } else if (event.type === 'message_delta') {
            stopReason = event.delta.stop_reason ?? stopReason;
          } else if (event.type === 'message_stop') {
            stopped = true;
          }
        }
        if (signal.aborted) return;
        // Without message_stop the stream was cut short (a proxy closed it cleanly).
        if (!stopped) throw new Error('the stream ended before message_stop');
        const calls = [...blocks.entries()]
          .sort(([left], [right]) => left - right)
          .map(([, call]) => ({ ...call, arguments: call.arguments === '' ? '{}' : call.arguments }));
        if (calls.length > 0) yield { type: 'tool_calls', calls };
        yield { type: 'end', finishReason: toFinishReason(stopReason, calls.length > 0) };
      });
    },
  };
}

/**
 * Our turns in the Messages shape: an assistant turn's tool calls become `tool_use` blocks, and
 * tool results become `tool_result` blocks of a user turn (consecutive ones share a turn, as
 * the API wants every result of one assistant turn in the next user turn).
 */
export function toAnthropicMessages(messages: readonly ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  let results: ToolResultBlockParam[] | null = null;
  for (const message of messages) {
    if (message.role === 'tool') {
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: message.toolCallId,
        content: message.content,
      };
      if (results) results.push(block);
      else {
        results = [block];
        out.push({ role: 'user', content: results });
      }
      continue;
    }
    results = null;
    if (message.role === 'user') {
      out.push({ role: 'user', content: message.content });
    } else {
      const content: ContentBlockParam[] =
        message.content === '' ? [] : [{ type: 'text', text: message.content }];
      for (const call of message.toolCalls ?? []) {
        content.push({
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: parseArguments(call.arguments),
        });
      }
      out.push({ role: 'assistant', content: content.length > 0 ? content : message.content });
    }
  }
  return out;
}

function toAnthropicTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.parameters, type: 'object' },
  };
}

/** The model sent the arguments as JSON text; a turn replayed to the API needs them as an object. */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};
  } catch {
    return {};
  }
}

function toFinishReason(
  reason: StopReason | null,
  hasCalls: boolean,
): 'stop' | 'length' | 'tool_calls' | 'other' {
  if (hasCalls || reason === 'tool_use') return 'tool_calls';
  if (reason === 'end_turn' || reason === 'stop_sequence' || reason === null) return 'stop';
  if (reason === 'max_tokens') return 'length';
  return 'other';
}
