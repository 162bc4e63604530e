import type { FastifyInstance } from 'fastify';
import { parseSseFrames, type SseFrame } from './sse.js';

/** An open admin event stream over a real socket: the frames so far, and waiting for one. */
export type OpenStream = {
  status: number;
  frames: SseFrame[];
  /** Resolves with the first frame (from the start) that matches, or fails after `ms`. */
  waitFor(match: (frame: SseFrame) => boolean, ms?: number): Promise<SseFrame>;
  /** Waits `ms` and returns the frames that arrived (for "nothing arrives" checks). */
  settle(ms: number): Promise<SseFrame[]>;
  close(): void;
  /** Resolves when the server ended the stream. */
  ended: Promise<void>;
};

/** The base URL of `app`, listening on a free local port (once). */
export async function listenOnce(app: FastifyInstance): Promise<string> {
  const address = app.server.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** Opens `GET /api/v1/admin/stream` (plus `query`) with `headers` and reads it as it comes. */
export async function openStream(
  base: string,
  headers: Record<string, string>,
  query = '',
): Promise<OpenStream> {
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/admin/stream${query}`, { headers, signal: abort.signal });
  const frames: SseFrame[] = [];
  const waiters = new Set<() => void>();
  let text = '';
  let endedResolve: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    endedResolve = resolve;
  });
  const status = res.status;
  if (status !== 200 || !res.body) {
    const body = await res.text();
    frames.push({ event: 'http', data: JSON.parse(body) });
    endedResolve();
  } else {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
          const cut = text.lastIndexOf('\n\n');
          if (cut < 0) continue;
          frames.push(...parseSseFrames(text.slice(0, cut + 2)));
          text = text.slice(cut + 2);
          for (const wake of waiters) wake();
        }
      } catch {
        // closed by the test
      } finally {
        endedResolve();
        for (const wake of waiters) wake();
      }
    })();
  }
  return {
    status,
    frames,
    ended,
    async waitFor(match, ms = 5_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = frames.find(match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching frame; got ${JSON.stringify(frames)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250));
          waiters.add(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        waiters.clear();
      }
    },
    async settle(ms) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return frames;
    },
    close() {
      abort.abort();
    },
  };
}
