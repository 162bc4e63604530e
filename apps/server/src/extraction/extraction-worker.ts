import { readHtmlPage } from '../crawl/read-html-page.js';
import { parseSitemap } from '../crawl/sitemap.js';
import { htmlToText } from '../ingest/html-text.js';
import { extractUploadText } from '../ingest/uploads/extract-upload-text.js';
import { watchBufferMemory } from './buffer-watch.js';
import type { ExtractionOutcome, ExtractionTask } from './extraction-task.js';

/**
 * The entry point of an extraction thread (see extraction-pool.ts): reads one upload, HTML page
 * or sitemap, or converts one synced item's HTML fields to text. The text cap is checked here, so text over it never crosses back to the main
 * thread; the heap and time limits are the pool's.
 */
async function runExtractionTask(task: ExtractionTask): Promise<ExtractionOutcome> {
  switch (task.kind) {
    case 'upload':
      try {
        const upload = await extractUploadText(task.bytes, task.type, { maxTextChars: task.maxTextChars });
        return { ok: true, kind: 'upload', upload };
      } catch (error) {
        return { ok: false, message: messageOf(error) };
      }
    case 'page':
      try {
        const page = readHtmlPage(task.html, task.url);
        if (page.text.length > task.maxTextChars) {
          return {
            ok: false,
            message: `has more than ${task.maxTextChars.toLocaleString('en-US')} characters of text`,
          };
        }
        return { ok: true, kind: 'page', page };
      } catch (error) {
        return { ok: false, message: `could not be read (${messageOf(error)})` };
      }
    case 'html-text':
      try {
        const texts = task.html.map(htmlToText);
        const length = texts.reduce((sum, text) => sum + text.length, 0);
        if (length > task.maxTextChars) {
          return {
            ok: false,
            message: `has more than ${task.maxTextChars.toLocaleString('en-US')} characters of text`,
          };
        }
        return { ok: true, kind: 'html-text', texts };
      } catch (error) {
        // Deeply nested markup can exhaust the thread's stack (RangeError): this item alone fails.
        return { ok: false, message: `could not be converted to text (${messageOf(error)})` };
      }
    case 'sitemap': {
      // parseSitemap never throws: a bad sitemap is `invalid` with its reason.
      const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
      return { ok: true, kind: 'sitemap', sitemap: parseSitemap(body) };
    }
  }
}

/** The thread's task handler (piscina calls the default export), held to the pool's buffer budget. */
export default watchBufferMemory(runExtractionTask);

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
