import { createHash } from 'node:crypto';
import {
  type TSource,
  type TUploadMetadata,
  UPLOAD_FIELD,
  UPLOAD_MAX_FILES,
  UPLOAD_NAME_MAX_CHARS,
} from '@service/contract';
import { validationError } from '../../errors/app-error.js';
import { extractionPool } from '../../extraction/shared-extraction-pool.js';
import { detectUploadType, fileNameExtension } from '../../ingest/uploads/detect-upload-type.js';
import type { ExtractedUpload, UploadExtent } from '../../ingest/uploads/extract-plain-text.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { newId } from '../../security/ids.js';
import { recordAudit } from '../audit.js';
import { assertPlanAllows } from '../billing/plan-limits.js';
import type { TenantScope } from '../context.js';
import { requireAgent } from '../require-agent.js';
import { storeSourceDocument } from './documents.js';
import { getSource } from './sources.js';

/** One uploaded file as received: the name the client sent and its bytes. */
export type IncomingUpload = { fileName: string; bytes: Uint8Array };

/** A file that passed detection and extraction: what is stored for it (its bytes are not kept). */
type PreparedUpload = { metadata: TUploadMetadata; text: string; title: string };

/** Name used when nothing is left of the one the client sent. */
const FALLBACK_NAME = 'upload';

// C0/C1 controls and DEL, plus the Unicode bidi controls that can make `exe.pdf` read as
// `fdp.exe` (Trojan Source, CVE-2021-42574).
const UNSAFE_NAME_CHARACTERS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Cuts `text` to at most `max` code points without splitting a surrogate pair. */
function clampCodePoints(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : points.slice(0, max).join('');
}

/**
 * The name an uploaded file is stored and shown under: the last path segment only (both `/`
 * and `\`), control and bidi characters removed, whitespace collapsed, at most 200
 * characters keeping the extension. A name with nothing left (`../`, `..`) becomes `upload`.
 */
export function sanitiseUploadName(raw: string): string {
  const segment = raw.split(/[/\\]/).at(-1) ?? '';
  const cleaned = segment.normalize('NFC').replace(UNSAFE_NAME_CHARACTERS, '').replace(/\s+/g, ' ').trim();
  if (cleaned === '' || /^\.+$/.test(cleaned)) return FALLBACK_NAME;
  if (Array.from(cleaned).length <= UPLOAD_NAME_MAX_CHARS) return cleaned;
  const extension = fileNameExtension(cleaned);
  // Keep a short extension whole: the type check compares it with the bytes.
  if (extension === '' || extension.length > 16) return clampCodePoints(cleaned, UPLOAD_NAME_MAX_CHARS);
  const stem = cleaned.slice(0, cleaned.length - extension.length - 1);
  return `${clampCodePoints(stem, UPLOAD_NAME_MAX_CHARS - extension.length - 1).trimEnd()}.${extension}`;
}

/** A document title from a file's own metadata (PDF Title, Markdown `# heading`), cleaned like a name. */
function cleanTitle(title: string | undefined, fallback: string): string {
  const cleaned = title?.replace(UNSAFE_NAME_CHARACTERS, '').replace(/\s+/g, ' ').trim() ?? '';
  return cleaned === '' ? fallback : clampCodePoints(cleaned, UPLOAD_NAME_MAX_CHARS);
}

/** How much of the file was read, as the contract's `*_read` fields (only those of its type). */
function extentMetadata(extent: UploadExtent): Partial<TUploadMetadata> {
  const fields: Partial<TUploadMetadata> = {};
  if (extent.pages !== undefined) fields.pages_read = extent.pages;
  if (extent.sheets !== undefined) fields.sheets_read = extent.sheets;
  if (extent.rows !== undefined) fields.rows_read = extent.rows;
  if (extent.paragraphs !== undefined) fields.paragraphs_read = extent.paragraphs;
  return fields;
}

/** Detects and extracts one file; the refusal is phrased `<name>: <reason>` for `errors.file`. */
async function prepareUpload(
  file: IncomingUpload,
): Promise<{ ok: true; upload: PreparedUpload } | { ok: false; message: string }> {
  const name = sanitiseUploadName(file.fileName);
  const detected = await detectUploadType(file.bytes, name);
  if (!detected.ok) return { ok: false, message: `${name}: ${detected.reason}` };
  let extracted: ExtractedUpload;
  try {
    extracted = await extractionPool().extractUpload(file.bytes, detected.type);
  } catch (error) {
    return { ok: false, message: `${name}: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (extracted.text.trim() === '') return { ok: false, message: `${name}: no text could be extracted` };
  return {
    ok: true,
    upload: {
      metadata: {
        file_name: name,
        file_type: detected.type,
        size_bytes: file.bytes.byteLength,
        // Of the bytes as uploaded; the document's content hash is of the extracted text.
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        ...extentMetadata(extracted.extent),
      },
      text: extracted.text,
      title: cleanTitle(extracted.title, name),
    },
  };
}

/**
 * Adds each uploaded file to an agent as an `upload` source holding one document of its
 * extracted text, all or nothing. The agent is checked (404) before `files` is read. Each
 * file is detected from its bytes and extracted as it arrives (its bytes are dropped after);
 * if any is refused, or none came, nothing is stored and the 422 lists every refused file
 * under `errors.file`. Otherwise every source, document, index job and `source.uploaded`
 * audit record is written in one transaction. Returns the sources in upload order.
 */
export async function uploadFiles(
  scope: TenantScope & { queue: JobQueue; embeddingsKey?: string | null },
  agentId: string,
  files: AsyncIterable<IncomingUpload>,
): Promise<TSource[]> {
  await requireAgent(scope.db, scope.workspaceId, agentId);
  const prepared: PreparedUpload[] = [];
  const refused: string[] = [];
  let received = 0;
  for await (const file of files) {
    received += 1;
    const result = await prepareUpload(file);
    if (result.ok) prepared.push(result.upload);
    else refused.push(result.message);
  }
  if (received === 0) {
    throw validationError({
      [UPLOAD_FIELD]: [
        `No file was sent; send up to ${UPLOAD_MAX_FILES} files in the multipart field "${UPLOAD_FIELD}".`,
      ],
    });
  }
  if (refused.length > 0) throw validationError({ [UPLOAD_FIELD]: refused });

  const rows = prepared.map((upload) => ({ ...upload, sourceId: newId() }));
  await scope.db.transaction().execute(async (trx) => {
    // The agent may have been deleted while the files were read.
    await requireAgent(trx, scope.workspaceId, agentId);
    await assertPlanAllows(trx, scope.workspaceId, {
      sources: rows.length,
      uploadBytes: rows.reduce((sum, row) => sum + row.metadata.size_bytes, 0),
    });
    for (const { sourceId, metadata, text, title } of rows) {
      await trx
        .insertInto('sources')
        .values({
          id: sourceId,
          workspace_id: scope.workspaceId,
          agent_id: agentId,
          type: 'upload',
          name: metadata.file_name,
          status: 'indexing',
          config: JSON.stringify(metadata),
        })
        .execute();
      await storeSourceDocument(
        trx,
        scope.queue,
        { id: sourceId, workspace_id: scope.workspaceId, agent_id: agentId },
        { externalId: 'upload', kind: 'upload', title, text, metadata },
      );
      await recordAudit(trx, {
        workspaceId: scope.workspaceId,
        actor: scope.actor,
        action: 'source.uploaded',
        target: { type: 'source', id: sourceId },
        metadata: {
          agent_id: agentId,
          file_name: metadata.file_name,
          file_type: metadata.file_type,
          size_bytes: metadata.size_bytes,
        },
        requestId: scope.requestId,
      });
    }
  });
  const sources: TSource[] = [];
  for (const { sourceId } of rows) sources.push(await getSource(scope, sourceId));
  return sources;
}
