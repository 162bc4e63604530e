import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import type { StoreReply, StoreRequest, StoreWorkerData } from './store-messages.js';
import { StoreScheduler } from './store-scheduler.js';

/**
 * The embedded store's thread (started by embedded-store.ts): owns the PGlite instance and runs
 * the protocol bytes the main thread's connections send, one whole group at a time
 * (store-scheduler.ts), so a long statement blocks this thread, never HTTP.
 */
if (!parentPort) throw new Error('store-worker.ts runs as a worker thread');
const port = parentPort;
const options: StoreWorkerData = workerData.data;

const post = (reply: StoreReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

/** Copies PGlite's answer into its own buffer (it may view a larger one) so it can be moved, not cloned. */
function owned(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}

async function open(): Promise<PGlite> {
  const startParams = options.cacheMb
    ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.cacheMb}MB`]
    : undefined;
  const loadDataDir = options.loadDump ? new Blob([await readFile(options.loadDump)]) : undefined;
  return PGlite.create({
    ...(options.pgdata ? { dataDir: options.pgdata } : {}),
    ...(loadDataDir ? { loadDataDir } : {}),
    ...(startParams ? { startParams } : {}),
    extensions: { vector, pg_trgm },
  });
}

/** Opens the store, then serves the main thread's requests until it closes the store. */
async function serve(): Promise<void> {
  let lite: PGlite;
  try {
    lite = await open();
  } catch (error) {
    post({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
  // A failure outside the SQL (the WebAssembly backend aborting) leaves the instance unusable: end
  // the thread, which the main thread reports and turns into failed queries.
  const fatal = (error: unknown) => {
    console.error(
      `embedded store thread failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    process.exit(1);
  };
  const scheduler = new StoreScheduler(
    (bytes) => lite.execProtocolRaw(bytes, { syncToFs: true }),
    (conn, bytes) => {
      const copy = owned(bytes);
      post({ type: 'result', conn, bytes: copy }, [copy.buffer]);
    },
    options.scheduling,
    fatal,
  );

  port.on('message', (request: StoreRequest) => {
    switch (request.type) {
      case 'exec':
        scheduler.exec(request.conn, request.lane, request.bytes);
        return;
      case 'end':
        scheduler.end(request.conn);
        return;
      case 'dump':
        void scheduler
          .idle()
          .then(() => lite.dumpDataDir('none'))
          .then(async (blob) => {
            const bytes = new Uint8Array(await blob.arrayBuffer());
            post({ type: 'dumped', bytes }, [bytes.buffer]);
          }, fatal);
        return;
      case 'close':
        void scheduler
          .idle()
          .then(() => lite.close())
          .then(() => post({ type: 'closed' }), fatal);
        return;
    }
  });

  post({ type: 'ready' });
}

void serve();
