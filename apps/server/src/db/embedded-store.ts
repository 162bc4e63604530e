import { siblingModule, startWorker } from '../workers/sibling-module.js';
import type { StoreLane, StoreReply, StoreRequest, StoreWorkerData } from './store-messages.js';
import type { StoreLink } from './worker-connection.js';

const WORKER_URL = siblingModule(import.meta.url, 'store-worker');

/** The embedded store's thread, as the main thread sees it. */
export type EmbeddedStoreThread = StoreLink & {
  /** A dump (tar) of the data dir, for test templates; waits until no group runs. */
  dump(): Promise<Uint8Array>;
  /** Closes PGlite in the thread (after the groups in flight), then ends the thread. */
  close(): Promise<void>;
  /** Ends the thread at once, as a crash would (the crash path's tests). */
  kill(): Promise<void>;
};

/**
 * Starts the thread that owns PGlite (store-worker.ts) and resolves once the store is open. If
 * the thread stops unexpectedly, every open connection's queries fail with an error saying so,
 * new connections fail the same way, and `onCrash` is called (the service stops, exit code 1).
 */
export async function startStoreThread(
  data: StoreWorkerData,
  onCrash: (error: Error) => void,
  onNotification: (channel: string, payload: string) => void = () => undefined,
): Promise<EmbeddedStoreThread> {
  const worker = startWorker(WORKER_URL, data);
  const connections = new Map<number, { onAnswer(bytes: Uint8Array): void; fail(error: Error): void }>();
  let nextConn = 1;
  let failure: Error | null = null;
  let closing = false;
  let dumped: ((bytes: Uint8Array) => void) | null = null;
  let closed: (() => void) | null = null;
  let startFailed: ((error: Error) => void) | null = null;

  const post = (request: StoreRequest, transfer: ArrayBuffer[] = []) => {
    if (!failure) worker.postMessage(request, transfer);
  };

  const ready = new Promise<void>((resolve, reject) => {
    startFailed = reject;
    worker.on('message', (reply: StoreReply) => {
      switch (reply.type) {
        case 'ready':
          startFailed = null;
          resolve();
          return;
        case 'failed':
          reject(new Error(`the embedded store could not be opened: ${reply.message}`));
          return;
        case 'result':
          connections.get(reply.conn)?.onAnswer(reply.bytes);
          return;
        case 'dumped':
          dumped?.(reply.bytes);
          return;
        case 'closed':
          closed?.();
          return;
      }
    });
  });

  const stop = (error: Error) => {
    if (failure) return;
    failure = error;
    for (const connection of connections.values()) connection.fail(error);
    connections.clear();
  };
  worker.on('error', (error) => {
    stop(new Error(`the embedded store stopped unexpectedly: ${error.message}`, { cause: error }));
  });
  worker.on('exit', (code) => {
    const error =
      failure ?? new Error(`the embedded store stopped unexpectedly (its thread exited with code ${code})`);
    stop(error);
    if (startFailed) startFailed(error);
    else if (!closing) onCrash(error);
  });

  await ready;

  return {
    get failure() {
      return failure;
    },
    attach(handlers) {
      const conn = nextConn++;
      connections.set(conn, handlers);
      return conn;
    },
    detach(conn) {
      connections.delete(conn);
    },
    notify: onNotification,
    send(conn: number, lane: StoreLane, bytes: Uint8Array<ArrayBuffer>) {
      post({ type: 'exec', conn, lane, bytes }, [bytes.buffer]);
    },
    end(conn) {
      post({ type: 'end', conn });
    },
    dump() {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve) => {
        dumped = resolve;
        post({ type: 'dump' });
      });
    },
    async close() {
      if (closing) return;
      closing = true;
      if (!failure) {
        await new Promise<void>((resolve) => {
          closed = resolve;
          worker.once('exit', () => resolve());
          post({ type: 'close' });
        });
      }
      await worker.terminate();
    },
    async kill() {
      await worker.terminate();
    },
  };
}
