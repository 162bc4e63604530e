import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The URL of a worker thread's module `name` beside the module at `importMetaUrl` (pass
 * `import.meta.url`), with the caller's own extension: `.ts` when the sources run through tsx
 * (tests), `.js` once built (dist/ holds no .ts).
 */
export function siblingModule(importMetaUrl: string, name: string): URL {
  return new URL(`./${name}${extname(fileURLToPath(importMetaUrl))}`, importMetaUrl);
}

/** The CommonJS entry that requires a thread's .ts module (only used from the sources, so not built). */
const TS_THREAD_ENTRY = new URL('./ts-thread-entry.cjs', import.meta.url);

/**
 * Starts a worker thread running the module at `url`, .js or .ts, with `data` as its `workerData`.
 * On Node 20 a thread inherits `--import tsx` from `execArgv`, but only tsx's require hook works
 * there, not its ESM loader: a .ts entry (or an `import()` of one) fails with
 * ERR_UNKNOWN_FILE_EXTENSION. So a .ts module is started by a CommonJS entry that `require`s it,
 * as piscina's own CommonJS entry does for the extraction pool. Such a module is compiled to
 * CommonJS: it must not use top-level await. The thread reads its data as `workerData.data`.
 */
export function startWorker<Data>(
  url: URL,
  data: Data,
  options: Omit<WorkerOptions, 'workerData'> = {},
): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, { ...options, workerData: { data } });
  return new Worker(TS_THREAD_ENTRY, {
    ...options,
    workerData: { data, tsModulePath: fileURLToPath(url) },
  });
}
