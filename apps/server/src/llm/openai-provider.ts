import OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { type FetchLike, guardStream } from './guard-stream.js';
import type {
  ChatMessage,
  CompletionRequest,
  LlmEvent,
  LlmProvider,
  ToolCall,
  ToolSpec,
} from './llm-provider.js';

/** OpenAI's public API, used when no base URL is configured. */
export const OPENAI_PUBLIC_BASE_URL = 'https://api.openai.com/v1';
/** The chat model used when none is configured. */
export const OPENAI_DEFAULT_CHAT_MODEL = 'gpt-4o-mini';
/** Answer budget in tokens when the request names none. */
const DEFAULT_MAX_TOKENS = 1024;

/** Settings of an OpenAI-compatible chat endpoint (OpenAI, Ollama, vLLM, llama.cpp, OpenRouter…). */
export type OpenAiProviderOptions = {
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  model?: string | undefined;
  timeoutMs: number;
  fetch?: FetchLike | undefined;
};

/**
 * A provider over `POST {base}/chat/completions` with `stream: true`. Text deltas are yielded as
 * they come; tool-call deltas are put together by index and yielded once, complete, before
 * `end`. No retries (failover is `withFailover`'s job); every failure is an `LlmError`.
 */
export function createOpenAiProvider(options: OpenAiProviderOptions): LlmProvider {
  const model = options.model ?? OPENAI_DEFAULT_CHAT_MODEL;
  const baseURL = options.baseUrl ?? OPENAI_PUBLIC_BASE_URL;
  const client = new OpenAI({
    // Local servers (Ollama, llama.cpp) need no key; the SDK insists on one, so the header is dropped instead.
    apiKey: options.apiKey ?? 'unused',
    ...(options.apiKey ? {} : { defaultHeaders: { Authorization: null } }),
    // Explicit, so OPENAI_BASE_URL / OPENAI_ORG_ID in the environment change nothing.
    baseURL,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: options.timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const label = `openai:${model}`;
  return {
    label,
    stream(request: CompletionRequest): AsyncIterable<LlmEvent> {
      return guardStream(label, options.timeoutMs, request, async function* ({ signal, touch }) {
        const stream = await client.chat.completions.create(
          {
            model,
            stream: true,
            max_tokens: request.maxTokens ?? DEFAULT_MAX_TOKENS,
            messages: toOpenAiMessages(request.system, request.messages),
            ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map(toOpenAiTool) } : {}),
          },
          { signal },
        );
        const calls = new ToolCallAssembler();
        let finish: ChatCompletionChunk.Choice['finish_reason'] = null;
        for await (const chunk of stream) {
          touch();
          const choice = chunk.choices[0];
          if (!choice) continue;
          const text = choice.delta.content;
          if (text) yield { type: 'token', text };
          for (const delta of choice.delta.tool_calls ?? []) calls.add(delta);
          if (choice.finish_reason) finish = choice.finish_reason;
        }
        if (signal.aborted) return;
        // A stream that stops without a finish reason was cut short (a proxy closed it cleanly).
        if (finish === null) throw new Error('the stream ended without a finish reason');
        const complete = calls.finish();
        if (complete.length > 0) yield { type: 'tool_calls', calls: complete };
        yield { type: 'end', finishReason: toFinishReason(finish, complete.length > 0) };
      });
    },
  };
}

/** Our turns in the Chat Completions shape; the system prompt goes first as a `system` message. */
export function toOpenAiMessages(
  system: string,
  messages: readonly ChatMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const message of messages) {
    if (message.role === 'user') out.push({ role: 'user', content: message.content });
    else if (message.role === 'tool') {
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.content });
    } else if (message.toolCalls && message.toolCalls.length > 0) {
      out.push({
        role: 'assistant',
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      });
    } else {
      out.push({ role: 'assistant', content: message.content });
    }
  }
  return out;
}

function toOpenAiTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}

function toFinishReason(
  finish: NonNullable<ChatCompletionChunk.Choice['finish_reason']>,
  hasCalls: boolean,
): 'stop' | 'length' | 'tool_calls' | 'other' {
  if (hasCalls || finish === 'tool_calls' || finish === 'function_call') return 'tool_calls';
  if (finish === 'stop' || finish === 'length') return finish;
  return 'other';
}

type ToolCallDelta = NonNullable<ChatCompletionChunk.Choice.Delta['tool_calls']>[number];

/** Streamed tool calls arrive as fragments keyed by `index`: the id and name once, the arguments in pieces. */
class ToolCallAssembler {
  readonly #parts = new Map<number, { id: string; name: string; arguments: string }>();

  add(delta: ToolCallDelta): void {
    const part = this.#parts.get(delta.index) ?? { id: '', name: '', arguments: '' };
    if (delta.id) part.id = delta.id;
    if (delta.function?.name) part.name += delta.function.name;
    if (delta.function?.arguments) part.arguments += delta.function.arguments;
    this.#parts.set(delta.index, part);
  }

  finish(): ToolCall[] {
    return [...this.#parts.entries()]
      .sort(([left], [right]) => left - right)
      .filter(([, part]) => part.name !== '')
      .map(([index, part]) => ({
        // Some compatible servers omit the id; the turn still needs one to pair the result with.
        id: part.id || `call_${index}`,
        name: part.name,
        arguments: part.arguments === '' ? '{}' : part.arguments,
      }));
  }
}
