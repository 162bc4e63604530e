import { type CompletionRequest, LlmError, type LlmEvent, type LlmProvider } from './llm-provider.js';

/** A stream that knows which provider answered it (null until the first event arrives). */
export type LabelledStream = AsyncIterable<LlmEvent> & { readonly answeredBy: string | null };

/** A failover pair; `label` is the label of the provider that answered this instance's latest stream. */
export type FailoverProvider = Omit<LlmProvider, 'stream'> & {
  readonly primaryLabel: string;
  readonly secondaryLabel: string;
  /** Label of the provider that answered the latest stream of this instance; null before the first. */
  readonly lastLabel: string | null;
  stream(request: CompletionRequest): LabelledStream;
};

/**
 * Tries `primary`; when it fails before anything was streamed (no token, no tool call), tries
 * `secondary` once. A failure after streaming began, or a call the caller cancelled, is
 * rethrown as is: the visitor already saw part of an answer, so a second one would be garbled.
 *
 * Which provider answered: each returned stream has `answeredBy` (safe when the instance serves
 * concurrent calls — read it with `answeringLabel(stream, provider)` after the loop); the
 * instance's `label` and `lastLabel` follow the latest stream, for callers that build one
 * provider per answer (as `resolveProvider` does).
 */
export function withFailover(primary: LlmProvider, secondary: LlmProvider): FailoverProvider {
  let lastLabel: string | null = null;
  return {
    get label() {
      return lastLabel ?? primary.label;
    },
    primaryLabel: primary.label,
    secondaryLabel: secondary.label,
    get lastLabel() {
      return lastLabel;
    },
    stream(request: CompletionRequest): LabelledStream {
      let answeredBy: string | null = null;
      const answered = (label: string) => {
        answeredBy = label;
        lastLabel = label;
      };
      async function* run(): AsyncGenerator<LlmEvent, void, undefined> {
        let streamed = false;
        try {
          for await (const event of primary.stream(request)) {
            if (answeredBy === null) answered(primary.label);
            if (event.type !== 'end') streamed = true;
            yield event;
          }
          return;
        } catch (error) {
          const hasStreamed = streamed || (error instanceof LlmError && error.hasStreamed);
          if (hasStreamed || request.signal?.aborted) throw error;
          let secondStreamed = false;
          try {
            for await (const event of secondary.stream(request)) {
              if (answeredBy !== secondary.label) answered(secondary.label);
              if (event.type !== 'end') secondStreamed = true;
              yield event;
            }
          } catch (second) {
            throw new LlmError(`${messageOf(error)}; then ${messageOf(second)}`, {
              cause: second,
              hasStreamed: secondStreamed || (second instanceof LlmError && second.hasStreamed),
            });
          }
        }
      }
      const events = run();
      return {
        get answeredBy() {
          return answeredBy;
        },
        [Symbol.asyncIterator]: () => events,
      };
    },
  };
}

/** The label of whoever answered `stream` (a failover stream knows), else the provider's own label. */
export function answeringLabel(stream: AsyncIterable<LlmEvent>, provider: LlmProvider): string {
  if ('answeredBy' in stream && typeof stream.answeredBy === 'string') return stream.answeredBy;
  return provider.label;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
