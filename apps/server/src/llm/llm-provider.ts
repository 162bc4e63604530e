/** One message of a model conversation (the system prompt travels separately). */
export type ChatMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: readonly ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/** A function the model may call; `parameters` is a JSON Schema object. */
export type ToolSpec = { name: string; description: string; parameters: Record<string, unknown> };

/** A finished tool call the model asked for; `arguments` is its JSON text as the model sent it. */
export type ToolCall = { id: string; name: string; arguments: string };

/** What a streamed completion yields: text as it comes, then the tool calls it asked for, then the end. */
export type LlmEvent =
  | { type: 'token'; text: string }
  | { type: 'tool_calls'; calls: readonly ToolCall[] }
  | { type: 'end'; finishReason: 'stop' | 'length' | 'tool_calls' | 'other' };

/** One completion request: the assembled system prompt, the turns, the tools, a way to stop. */
export type CompletionRequest = {
  system: string;
  messages: readonly ChatMessage[];
  tools?: readonly ToolSpec[];
  maxTokens?: number;
  signal?: AbortSignal;
};

/** Raised by a provider for any failure (network, timeout, HTTP status, malformed stream). */
export class LlmError extends Error {
  override readonly name = 'LlmError';
  /** Whether anything was already streamed to the caller (then no failover is possible). */
  readonly hasStreamed: boolean;
  constructor(message: string, options: { cause?: unknown; hasStreamed?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.hasStreamed = options.hasStreamed ?? false;
  }
}

/** A chat model behind one interface: OpenAI-compatible, Anthropic, or a failover pair. */
export type LlmProvider = {
  /** Short label stored with each answer, e.g. `openai:gpt-4o-mini`. */
  readonly label: string;
  /** Streams one completion; throws {@link LlmError} on failure. */
  stream(request: CompletionRequest): AsyncIterable<LlmEvent>;
};
