import { type CompletionRequest, LlmError, type LlmEvent } from './llm-provider.js';

/** A `fetch` as both SDKs accept it; tests inject one that never leaves the machine. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** What a provider's raw stream gets from {@link guardStream}. */
export type StreamControl = {
  /** Aborts on the caller's signal or when upstream is idle for longer than the timeout. */
  signal: AbortSignal;
  /** Call on every upstream chunk (even one that yields nothing): it restarts the idle timer. */
  touch(): void;
};

/**
 * Runs one provider call and turns every failure into an {@link LlmError}. `timeoutMs` bounds
 * the wait for the first byte and every later gap between upstream chunks (the SDKs' own
 * timeout stops at the response headers, so a stream that hangs midway needs this timer); the
 * time the caller spends on a yielded event does not count. `hasStreamed` is true once a
 * token or tool-call event was yielded. Never puts the API key or the upstream body in the message.
 */
export async function* guardStream(
  label: string,
  timeoutMs: number,
  request: CompletionRequest,
  run: (control: StreamControl) => AsyncIterable<LlmEvent>,
): AsyncGenerator<LlmEvent, void, undefined> {
  const controller = new AbortController();
  let stop: 'timeout' | 'aborted' | null = null;
  let timer: NodeJS.Timeout | undefined;
  const abort = (why: 'timeout' | 'aborted') => {
    stop ??= why;
    controller.abort();
  };
  const onCallerAbort = () => abort('aborted');
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort('timeout'), timeoutMs);
    // An abandoned stream must not keep the process alive until its timer fires.
    timer.unref();
  };
  const caller = request.signal;
  if (caller?.aborted) abort('aborted');
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  let hasStreamed = false;
  arm();
  try {
    for await (const event of run({ signal: controller.signal, touch: arm })) {
      if (stop) break;
      if (event.type !== 'end') hasStreamed = true;
      clearTimeout(timer);
      yield event;
      arm();
    }
    if (stop) throw new Error('stopped');
  } catch (error) {
    throw toLlmError(label, error, { hasStreamed, stop, timeoutMs });
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  }
}

/** The message of a failed call: who, and what kind of failure (status, timeout, abort, network). */
function toLlmError(
  label: string,
  error: unknown,
  state: { hasStreamed: boolean; stop: 'timeout' | 'aborted' | null; timeoutMs: number },
): LlmError {
  if (error instanceof LlmError) return error;
  const options = { cause: error, hasStreamed: state.hasStreamed };
  if (state.stop === 'timeout' || errorName(error) === 'APIConnectionTimeoutError') {
    return new LlmError(`${label}: no answer within ${state.timeoutMs} ms`, options);
  }
  if (state.stop === 'aborted') return new LlmError(`${label}: the call was cancelled`, options);
  const status = errorStatus(error);
  if (status !== null) return new LlmError(`${label}: upstream answered HTTP ${status}`, options);
  const name = errorName(error);
  return new LlmError(`${label}: the call failed (${name ?? 'unknown error'})`, options);
}

function errorStatus(error: unknown): number | null {
  if (typeof error !== 'object' || error === null || !('status' in error)) return null;
  return typeof error.status === 'number' ? error.status : null;
}

function errorName(error: unknown): string | null {
  return error instanceof Error ? error.name : null;
}
