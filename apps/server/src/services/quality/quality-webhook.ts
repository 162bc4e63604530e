import {
  QUALITY_REGRESSED_EVENT,
  type TQualityRegressedData,
  type TQualityRegressedEvent,
} from '@service/contract';
import { sql } from 'kysely';
import type { Queryable } from '../../db/queryable.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { deliverWebhookSpec } from '../../queue/job-specs.js';
import { newId } from '../../security/ids.js';

/**
 * One `webhook_deliveries` row and `deliver-webhook` job per active webhook of the workspace
 * subscribed to `agent.quality_regressed`, in the caller's transaction. The delivery's subject
 * is the run. Returns how many deliveries were queued.
 */
export async function queueQualityRegressed(
  trx: Queryable,
  queue: JobQueue,
  now: Date,
  event: { workspaceId: string; data: TQualityRegressedData },
): Promise<number> {
  const hooks = await trx
    .selectFrom('webhooks')
    .select('id')
    .where('workspace_id', '=', event.workspaceId)
    .where('is_active', '=', true)
    .where(sql<boolean>`events @> array[${QUALITY_REGRESSED_EVENT}]::text[]`)
    .orderBy('id')
    .execute();
  if (hooks.length === 0) return 0;
  const rows = hooks.map((hook) => {
    const id = newId();
    const body: TQualityRegressedEvent = {
      id,
      event: QUALITY_REGRESSED_EVENT,
      created_at: now.toISOString(),
      data: event.data,
    };
    return {
      id,
      workspace_id: event.workspaceId,
      webhook_id: hook.id,
      event: QUALITY_REGRESSED_EVENT,
      subject_id: event.data.run_id,
      payload: JSON.stringify(body),
      created_at: now,
      updated_at: now,
    };
  });
  await trx.insertInto('webhook_deliveries').values(rows).execute();
  await queue.sendMany(
    deliverWebhookSpec,
    rows.map((row) => ({ payload: { deliveryId: row.id } })),
    { db: trx },
  );
  return rows.length;
}
