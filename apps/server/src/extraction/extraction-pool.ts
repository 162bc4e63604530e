import type { CrawlReader } from '../crawl/crawl-reader.js';
import type { UploadType } from '../ingest/uploads/detect-upload-type.js';
import { type ExtractedUpload, extractPlainText } from '../ingest/uploads/extract-plain-text.js';
import { extractWithinRules, UPLOAD_TYPE_NAMES } from '../ingest/uploads/upload-text-rules.js';
import { siblingModule } from '../workers/sibling-module.js';
import { createBoundedPool, type PoolLimits, WorkerLimitError } from './bounded-pool.js';
import type { ExtractionOutcome, ExtractionTask } from './extraction-task.js';

/** The pool's limits, and the most characters of text one file may yield. */
export type ExtractionLimits = PoolLimits & { maxTextChars: number };

/**
 * A page the extraction could not read. The message is a predicate for the page's URL
 * (`could not be read within the limits: it needs more than 512 MB of memory to read`), so a
 * caller writes `failed: ${url} ${message}`.
 */
export class PageReadError extends Error {
  override readonly name = 'PageReadError';
}

/**
 * HTML a synced post or product carries that could not become text. The message is a predicate
 * (`could not be converted to text within the limits: it takes longer than 60 s to read`,
 * `has more than 2,000,000 characters of text`), so a caller writes `its HTML ${message}`.
 */
export class HtmlTextError extends Error {
  override readonly name = 'HtmlTextError';
}

/**
 * Reads uploads, crawled pages and sitemaps, and converts synced HTML, in bounded worker threads. As a {@link CrawlReader},
 * `readPage` and `readSitemap` reject with {@link PageReadError}.
 */
export type ExtractionPool = CrawlReader & {
  /**
   * The text of an upload of a detected type. Rejects with an Error whose message is for the
   * admin (`the PDF file could not be read within the limits: …`, `the Word (.docx) file is
   * too large: …`). Text types are read on the calling thread: decoding is linear and cheap.
   */
  extractUpload(bytes: Uint8Array, type: UploadType): Promise<ExtractedUpload>;
  /**
   * The text of each HTML field of one synced item (`htmlToText`), in order, off the calling
   * thread: one task per item, so an item that overruns a limit fails alone. Rejects with
   * {@link HtmlTextError} when a limit stopped it, its text (all fields) is over the cap, or the
   * markup broke the converter (such as nesting deeper than the thread's stack).
   */
  htmlToTexts(html: readonly string[]): Promise<string[]>;
  /** Terminates the threads; files still being read fail. */
  close(): Promise<void>;
};

// The thread's module beside this one: .ts when the sources run through tsx (tests), .js once built.
const WORKER_URL = siblingModule(import.meta.url, 'extraction-worker');

/**
 * A pool of `limits.workers` threads, each with a `limits.heapMb` heap, that read one file
 * each within `limits.timeoutMs`. A file that exhausts the heap, overruns or kills its thread
 * fails alone with the limit in its message; the pool starts a new thread for the next file.
 */
export function createExtractionPool(limits: ExtractionLimits): ExtractionPool {
  const pool = createBoundedPool<ExtractionTask, ExtractionOutcome>(WORKER_URL, limits);
  const { maxTextChars } = limits;

  /** Runs a page or sitemap task; a limit or a refusal becomes a {@link PageReadError}. */
  const runForUrl = async (
    task: ExtractionTask,
    transfer: ArrayBuffer[] = [],
  ): Promise<Extract<ExtractionOutcome, { ok: true }>> => {
    let outcome: ExtractionOutcome;
    try {
      outcome = await pool.run(task, transfer);
    } catch (error) {
      if (!(error instanceof WorkerLimitError)) throw error;
      throw new PageReadError(`could not be read within the limits: ${error.message}`, { cause: error });
    }
    if (!outcome.ok) throw new PageReadError(outcome.message);
    return outcome;
  };

  return {
    async extractUpload(bytes, type) {
      if (type === 'csv' || type === 'md' || type === 'txt') {
        return extractWithinRules(type, maxTextChars, () => extractPlainText(bytes, type));
      }
      // A copy of exactly these bytes, moved to the thread: cloning a view would copy its whole
      // buffer, and moving the caller's would detach it. (Not `slice`: on a Buffer it is a view.)
      const copy = new Uint8Array(bytes);
      let outcome: ExtractionOutcome;
      try {
        outcome = await pool.run({ kind: 'upload', bytes: copy, type, maxTextChars }, [copy.buffer]);
      } catch (error) {
        if (!(error instanceof WorkerLimitError)) throw error;
        const name = UPLOAD_TYPE_NAMES[type];
        throw new Error(`the ${name} file could not be read within the limits: ${error.message}`, {
          cause: error,
        });
      }
      if (!outcome.ok) throw new Error(outcome.message);
      if (outcome.kind !== 'upload') throw new Error(`the extraction thread answered with a ${outcome.kind}`);
      return outcome.upload;
    },
    async htmlToTexts(html) {
      // Nothing to convert: no thread needed (`htmlToText` of blank HTML is '').
      if (html.every((field) => field.trim() === '')) return html.map(() => '');
      let outcome: ExtractionOutcome;
      try {
        outcome = await pool.run({ kind: 'html-text', html: [...html], maxTextChars });
      } catch (error) {
        if (!(error instanceof WorkerLimitError)) throw error;
        throw new HtmlTextError(`could not be converted to text within the limits: ${error.message}`, {
          cause: error,
        });
      }
      if (!outcome.ok) throw new HtmlTextError(outcome.message);
      if (outcome.kind !== 'html-text')
        throw new Error(`the extraction thread answered with a ${outcome.kind}`);
      return outcome.texts;
    },
    async readPage(html, url) {
      const outcome = await runForUrl({ kind: 'page', html, url, maxTextChars });
      if (outcome.kind !== 'page') throw new Error(`the extraction thread answered with a ${outcome.kind}`);
      return outcome.page;
    },
    async readSitemap(body) {
      const copy = new Uint8Array(body);
      const outcome = await runForUrl({ kind: 'sitemap', body: copy }, [copy.buffer]);
      if (outcome.kind !== 'sitemap')
        throw new Error(`the extraction thread answered with a ${outcome.kind}`);
      return outcome.sitemap;
    },
    close: () => pool.close(),
  };
}
