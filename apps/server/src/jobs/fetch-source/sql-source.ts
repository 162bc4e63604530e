import type { JobContext } from '../../queue/job-queue.js';
import { sha256Hex } from '../../security/hashing.js';
import { createSecretKeyring } from '../../security/secret-keyring.js';
import { upsertDocuments } from '../../services/knowledge/documents.js';
import {
  failRun,
  finishRun,
  removeDocumentsExcept,
  type SourceRef,
  startRun,
} from '../../services/knowledge/source-run.js';
import { rowsToDocuments } from '../../sql-source/rows-to-documents.js';
import { runSelect } from '../../sql-source/run-select.js';
import { openSqlPassword } from '../../sql-source/sql-password.js';
import { ZSqlSourceConfig } from '../../sql-source/sql-source-config.js';
import { validateSelect } from '../../sql-source/validate-select.js';

/** Rows written per statement (Postgres takes at most 65 535 parameters in one). */
const UPSERT_BATCH = 500;

/**
 * Fetches an `sql` source: opens the sealed password with APP_KEY, checks the query again (one
 * read-only SELECT), runs it through the guarded runner (host vetted and pinned, read-only
 * transaction, statement timeout, row cap) and stores each row as a document. Rows that are gone
 * are removed; unchanged rows are not re-indexed. Failures are stored verbatim, never with the
 * password.
 */
export async function runSqlSource(context: JobContext, source: SourceRef): Promise<void> {
  const { db, queue } = context;
  const { password_sealed: sealed, ...settings } = source.config;
  const parsed = ZSqlSourceConfig.safeParse({ ...settings, type: 'sql', password: '' });
  if (!parsed.success || typeof sealed !== 'string') {
    await failRun(db, context.clock, source.id, 'failed: the stored SQL settings are incomplete');
    return;
  }
  const config = parsed.data;
  let password: string;
  try {
    password = openSqlPassword(
      sealed,
      createSecretKeyring(context.appKey, context.appKeyPrevious),
      source.id,
    );
  } catch {
    await failRun(
      db,
      context.clock,
      source.id,
      'failed: the stored password cannot be decrypted (was APP_KEY changed?)',
    );
    return;
  }
  const check = validateSelect(config.query, config.engine);
  if (!check.ok) {
    await failRun(db, context.clock, source.id, `refused: ${check.reason}`);
    return;
  }
  await startRun(db, context.clock, source.id);
  const result = await runSelect(
    { ...config, password, query: check.sql },
    { allow: context.safeUrlAllow ?? [] },
  );
  if (!result.ok) {
    context.log.info({ sourceId: source.id, reason: result.reason }, 'sql source not read');
    await failRun(db, context.clock, source.id, result.reason);
    return;
  }
  const drafts = rowsToDocuments(result, config);
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < drafts.length; start += UPSERT_BATCH) {
      await upsertDocuments(
        trx,
        queue,
        source,
        drafts.slice(start, start + UPSERT_BATCH).map((draft) => {
          const hash = sha256Hex(`${draft.title}\n${draft.url ?? ''}\n${draft.text}`);
          return {
            externalId: draft.externalId,
            hash,
            toDocument: () => ({
              externalId: draft.externalId,
              kind: 'row',
              title: draft.title,
              url: draft.url,
              language: null,
              text: draft.text,
              hash,
              metadata: {},
              modifiedAt: context.clock.now(),
            }),
          };
        }),
      );
    }
    const removed = await removeDocumentsExcept(
      trx,
      source.id,
      drafts.map((draft) => draft.externalId),
    );
    await finishRun(
      trx,
      context.clock,
      source.id,
      {
        found: result.rows.length,
        failed: 0,
        fetched: drafts.length,
        skipped: result.rows.length - drafts.length,
        removed,
        stopped_by: result.truncated ? 'row_cap' : 'done',
        failures: [],
      },
      context.embeddings?.key,
      { queue: context.queue, clock: context.clock },
    );
  });
}
