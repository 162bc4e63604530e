import type { HtmlPage } from '../crawl/read-html-page.js';
import type { Sitemap } from '../crawl/sitemap.js';
import type { UploadType } from '../ingest/uploads/detect-upload-type.js';
import type { ExtractedUpload } from '../ingest/uploads/extract-plain-text.js';

/**
 * One job for an extraction thread: an upload's bytes, a fetched HTML page, a fetched sitemap, or
 * the HTML fields of one synced post or product (`html-text`: each field converted to text).
 */
export type ExtractionTask =
  | { kind: 'upload'; bytes: Uint8Array; type: UploadType; maxTextChars: number }
  | { kind: 'html-text'; html: string[]; maxTextChars: number }
  | { kind: 'page'; html: string; url: string; maxTextChars: number }
  | { kind: 'sitemap'; body: Uint8Array };

/**
 * What a thread answers. A file it could not read comes back as `ok: false` with the reason
 * (not thrown: an Error crossing threads loses its class and fields).
 */
export type ExtractionOutcome =
  | { ok: true; kind: 'upload'; upload: ExtractedUpload }
  | { ok: true; kind: 'page'; page: HtmlPage }
  | { ok: true; kind: 'sitemap'; sitemap: Sitemap }
  | { ok: true; kind: 'html-text'; texts: string[] }
  | { ok: false; message: string };
