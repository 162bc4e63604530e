import type { TStreamFrame } from '@service/contract';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logRequestError, serviceErrorBody, toAppError } from './error-handler.js';

/** Milliseconds between `: keep-alive` comments while the answer is being prepared. */
const KEEP_ALIVE_MS = 15_000;

/**
 * One server-sent event as the contract's streams name it: an event name and its JSON data, and
 * for resumable streams an `id` (the client's `Last-Event-ID` when it reconnects).
 */
export type EventFrame = { event: string; data: unknown; id?: string | null | undefined };

/**
 * Writes one SSE frame: an `id: <id>` line when the frame has one, `event: <name>` and one line
 * of JSON (JSON never contains a raw newline; ids are decimal strings).
 */
export function formatFrame(frame: EventFrame): string {
  const id = frame.id ? `id: ${frame.id}\n` : '';
  return `${id}event: ${frame.event}\ndata: ${JSON.stringify(frame.data)}\n\n`;
}

/**
 * The `error` frame for whatever the answer threw: the same code and message the JSON route's
 * error envelope carries (the stream's status line is already sent, so the frame says it).
 */
export function errorFrame(error: unknown): TStreamFrame {
  const { code, message } = serviceErrorBody(toAppError(error));
  return { event: 'error', data: { code, message } };
}

/** What a stream's producer gets: a frame writer (a no-op once the client left) and the abort signal. */
export type EventStream<F extends EventFrame> = {
  send: (frame: F) => void;
  signal: AbortSignal;
};

/**
 * Answers `request` as `text/event-stream`: hijacks the reply, sends 200 with the headers hooks
 * set so far (a hijacked reply no longer sends them itself) plus `headers`, a `: stream open`
 * comment, then `: keep-alive` every 15 s while `produce` runs. The client closing the
 * connection aborts the signal; whatever `produce` throws is logged and becomes an `error`
 * frame; the stream always ends. Checks that answer as JSON must run before this is called.
 */
export async function serveEventStream<F extends EventFrame>(
  request: FastifyRequest,
  reply: FastifyReply,
  headers: Record<string, string>,
  produce: (stream: EventStream<F>) => Promise<unknown>,
  options: {
    /** A client this far behind (bytes written but not yet taken by the socket) is dropped. */
    maxBufferedBytes?: number;
  } = {},
): Promise<void> {
  const abort = new AbortController();
  reply.hijack();
  const raw = reply.raw;
  const set = Object.entries(reply.getHeaders()).filter(
    (entry): entry is [string, string | number | string[]] => entry[1] !== undefined,
  );
  raw.writeHead(200, {
    ...Object.fromEntries(set),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    'x-request-id': request.id,
    ...headers,
  });
  raw.write(': stream open\n\n');
  const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  raw.on('close', () => {
    if (!raw.writableFinished) abort.abort();
  });
  const write = (frame: EventFrame) => {
    if (raw.destroyed) return;
    raw.write(formatFrame(frame));
    // A slow client is not buffered for without bound: it is dropped (and reconnects to resume).
    if (options.maxBufferedBytes !== undefined && raw.writableLength > options.maxBufferedBytes) {
      abort.abort();
      raw.destroy();
    }
  };
  try {
    await produce({ send: write, signal: abort.signal });
  } catch (error) {
    logRequestError(request.log, error, toAppError(error));
    write(errorFrame(error));
  } finally {
    clearInterval(keepAlive);
    raw.end();
  }
}
