import { defineJob, type JobContextOf } from '../queue/job-queue.js';
import { PUSH_LEAD_RETRY_LIMIT, pushLeadSpec } from '../queue/job-specs.js';
import { isRetryableFailure, pushLead } from '../site-calls/plugin-client.js';

/**
 * Pushes a lead into the agent's site (`POST {plugin_base}leads`, signed). Success stores the
 * site's `user_id` as `site_user_id` and `pushed_at`, and clears `push_error`. A failure stores
 * `push_error`; timeouts, network errors and 5xx/429 answers are retried with backoff, while a
 * 4xx plugin error, a refused URL or a missing site is final. Pushes the lead as it is now, so a
 * second run sends the same body and leaves the same state; keyed per lead, so repeats collapse.
 */
export const pushLeadJob = defineJob({
  ...pushLeadSpec,
  async handle({ leadId }, context: JobContextOf<'safeUrlAllow' | 'clock'>) {
    const lead = await context.db
      .selectFrom('leads')
      .select(['id', 'workspace_id', 'agent_id', 'email', 'name', 'phone', 'conversation_id'])
      .where('id', '=', leadId)
      .executeTakeFirst();
    if (!lead) return; // erased meanwhile
    const result = await pushLead({
      db: context.db,
      workspaceId: lead.workspace_id,
      agentId: lead.agent_id,
      safeUrlAllow: context.safeUrlAllow,
      lead: {
        email: lead.email,
        name: lead.name,
        phone: lead.phone,
        conversation_id: lead.conversation_id ?? '',
        service_lead_id: lead.id,
      },
    });
    if (result.ok) {
      const now = context.clock.now();
      await context.db
        .updateTable('leads')
        .set({ site_user_id: result.data.user_id, pushed_at: now, push_error: null, updated_at: now })
        .where('id', '=', leadId)
        .execute();
      return;
    }
    // Guard and network reasons read on their own ("refused: …"); site answers name status and code.
    const detail = [result.kind, result.status, result.code].filter((part) => part !== undefined).join(' ');
    const pushError = (result.status === undefined ? result.message : `${detail}: ${result.message}`).slice(
      0,
      1000,
    );
    await context.db
      .updateTable('leads')
      .set({ push_error: pushError, updated_at: context.clock.now() })
      .where('id', '=', leadId)
      .execute();
    const retry = isRetryableFailure(result) && context.attempt <= PUSH_LEAD_RETRY_LIMIT;
    context.log.info({ leadId, attempt: context.attempt, error: pushError, retry }, 'lead not pushed');
    if (retry) throw new Error(`lead ${leadId} not pushed: ${pushError}`);
  },
  async giveUp({ leadId }, { db, clock }, reason) {
    // A push that ran out of time or was interrupted on its last attempt says so in push_error.
    const noted = await db
      .updateTable('leads')
      .set({ push_error: `the push ${reason}`, updated_at: clock.now() })
      .where('id', '=', leadId)
      .where('pushed_at', 'is', null)
      .executeTakeFirst();
    return Number(noted.numUpdatedRows) > 0;
  },
});
