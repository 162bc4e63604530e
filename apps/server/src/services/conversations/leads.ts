import type { TAdminLead, TLeadCapturedEvent, TLeadRecord } from '@service/contract';
import { sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { LeadRow } from '../../db/schema-conversations.js';
import { notFound, validationError } from '../../errors/app-error.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { deliverWebhookSpec, pushLeadSpec } from '../../queue/job-specs.js';
import { isId, newId } from '../../security/ids.js';
import { hasSiteTarget } from '../../site-calls/site-target.js';
import { iso } from '../context.js';
import { publishEvent } from '../events/admin-events.js';
import { type LeadFilters, whereLeadFilters } from './lead-filters.js';

/** The event a new lead fires. */
export const LEAD_CAPTURED_EVENT = 'lead.captured';
const EMAIL_MAX = 320; // RFC 5321: 64 + 1 + 255
const NAME_MAX = 200;
const PHONE_MAX = 64;
const EMAIL_SHAPE = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** What a visitor gave: an email, and optionally a name and a phone ('' or absent: not given). */
export type LeadInput = {
  email: string;
  name?: string | null | undefined;
  phone?: string | null | undefined;
};

/**
 * The deduplication key of an email: trimmed and lower-cased as a whole. RFC 5321 lets the
 * local part be case-sensitive, but no mainstream mail host treats it so, and site platforms
 * (WordPress's `email_exists`) match case-insensitively too. Dots and `+tags` are kept.
 */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Captures a lead for an agent, deduplicated by normalised email per agent. A new lead gets, in
 * the same transaction: a `webhook_deliveries` row and a `deliver-webhook` job per active webhook
 * of the workspace subscribed to `lead.captured`, and a `push-lead` job when the agent has a
 * site. A repeat keeps the lead (same id, first email spelling, visitor and conversation); from
 * the same visitor it updates name and phone where a non-empty, different value is given (a
 * repeat from another visitor changes nothing: an email proves nothing); such a change queues
 * a new `push-lead` (the site gets the latest details) but fires no webhook (nothing new was
 * captured). 404 when the agent is not the workspace's; 422 for an unusable email.
 */
export async function captureLead(options: {
  db: Queryable;
  queue: JobQueue;
  workspaceId: string;
  agentId: string;
  visitorId: string | null;
  conversationId: string | null;
  input: LeadInput;
  clock: Clock;
}): Promise<{ id: string; created: boolean; changed: boolean }> {
  const input = cleanInput(options.input);
  const now = options.clock.now();
  const scope = { workspaceId: options.workspaceId, agentId: options.agentId };
  return inTransaction(options.db, async (trx) => {
    const agent = await trx
      .selectFrom('agents')
      .select('id')
      .where('id', '=', options.agentId)
      .where('workspace_id', '=', options.workspaceId)
      .executeTakeFirst();
    if (!agent) throw notFound();
    let existing = await findLead(trx, options.agentId, input.normalized);
    if (!existing) {
      const inserted = await trx
        .insertInto('leads')
        .values({
          id: newId(),
          workspace_id: options.workspaceId,
          agent_id: options.agentId,
          visitor_id: options.visitorId,
          conversation_id: options.conversationId,
          email: input.email,
          email_normalized: input.normalized,
          name: input.name,
          phone: input.phone,
          created_at: now,
          updated_at: now,
        })
        // A concurrent capture of the same email won: continue as a repeat of it.
        .onConflict((oc) => oc.columns(['agent_id', 'email_normalized']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted) {
        await queueWebhooks(trx, options.queue, inserted, now);
        await publishEvent(trx, options.workspaceId, {
          type: 'lead.created',
          at: now.toISOString(),
          agent_id: inserted.agent_id,
          lead_id: inserted.id,
          conversation_id: inserted.conversation_id,
        });
        if (await hasSiteTarget(trx, scope)) await queuePush(trx, options.queue, inserted.id);
        return { id: inserted.id, created: true, changed: true };
      }
      existing = await findLead(trx, options.agentId, input.normalized);
      if (!existing) throw new Error('a conflicting lead vanished during capture');
    }
    // Anyone can type any email into a widget: only the visitor who left the lead may change its
    // details. Another visitor's repeat changes nothing (and pushes nothing to the site), so it
    // cannot rewrite a stranger's name or phone, here or in the site's customer record.
    if (options.visitorId !== null && existing.visitor_id !== options.visitorId) {
      return { id: existing.id, created: false, changed: false };
    }
    const name = input.name !== '' && input.name !== existing.name ? input.name : undefined;
    const phone = input.phone !== '' && input.phone !== existing.phone ? input.phone : undefined;
    if (name === undefined && phone === undefined) return { id: existing.id, created: false, changed: false };
    await trx
      .updateTable('leads')
      .set({
        ...(name === undefined ? {} : { name }),
        ...(phone === undefined ? {} : { phone }),
        updated_at: now,
      })
      .where('id', '=', existing.id)
      .execute();
    if (await hasSiteTarget(trx, scope)) await queuePush(trx, options.queue, existing.id);
    return { id: existing.id, created: false, changed: true };
  });
}

/** Lists a workspace's leads, filtered (see {@link whereLeadFilters}), newest first, with keyset paging on the id. */
export async function listLeads(
  options: {
    db: Queryable;
    workspaceId: string;
    cursor?: string | undefined;
    limit: number;
  } & LeadFilters,
): Promise<{ items: TAdminLead[]; nextCursor: string | null }> {
  let query = whereLeadFilters(
    options.db.selectFrom('leads').selectAll().where('workspace_id', '=', options.workspaceId),
    options,
  )
    .orderBy('id', 'desc')
    .limit(options.limit + 1);
  if (options.cursor !== undefined) {
    // The cursor is the last id of the previous page; anything else names no page.
    if (!isId(options.cursor)) {
      throw validationError({
        cursor: ['The cursor is not valid; use meta.next_cursor of a previous page.'],
      });
    }
    query = query.where('id', '<', options.cursor);
  }
  const rows = await query.execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return { items: page.map(toAdminLead), nextCursor: rows.length > options.limit && last ? last.id : null };
}

/**
 * Erases a visitor's leads and every webhook delivery about them (`subject_id` = lead id), so
 * no queued job sends them afterwards. Call it before deleting the visitor: the visitor's
 * cascade removes leads but not their deliveries. Pass the caller's transaction when it has one.
 */
export async function eraseVisitorLeads(options: {
  db: Queryable;
  workspaceId: string;
  visitorId: string;
}): Promise<{ leads: number; deliveries: number }> {
  return inTransaction(options.db, async (trx) => {
    const leadIds = trx
      .selectFrom('leads')
      .select('id')
      .where('workspace_id', '=', options.workspaceId)
      .where('visitor_id', '=', options.visitorId);
    const deliveries = await trx
      .deleteFrom('webhook_deliveries')
      .where('workspace_id', '=', options.workspaceId)
      .where('subject_id', 'in', leadIds)
      .executeTakeFirst();
    const leads = await trx
      .deleteFrom('leads')
      .where('workspace_id', '=', options.workspaceId)
      .where('visitor_id', '=', options.visitorId)
      .executeTakeFirst();
    return { leads: Number(leads.numDeletedRows), deliveries: Number(deliveries.numDeletedRows) };
  });
}

/** A lead as events carry it. */
export function toLeadRecord(row: LeadRow): TLeadRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    phone: row.phone,
    agent_id: row.agent_id,
    conversation_id: row.conversation_id,
    created_at: iso(row.created_at),
  };
}

/** A lead as the admin API shows it. */
export function toAdminLead(row: LeadRow): TAdminLead {
  return {
    ...toLeadRecord(row),
    visitor_id: row.visitor_id,
    site_user_id: row.site_user_id === null ? null : Number(row.site_user_id),
    pushed_at: iso(row.pushed_at),
    push_error: row.push_error,
    updated_at: iso(row.updated_at),
  };
}

/** Trims the input and checks it (the widget route validated it already; this is the backstop). */
function cleanInput(input: LeadInput) {
  const email = input.email.trim();
  const name = (input.name ?? '').trim();
  const phone = (input.phone ?? '').trim();
  const errors: Record<string, string[]> = {};
  if (email.length > EMAIL_MAX || !EMAIL_SHAPE.test(email)) errors.email = ['Must be a valid email address.'];
  if (name.length > NAME_MAX) errors.name = [`Must be at most ${NAME_MAX} characters.`];
  if (phone.length > PHONE_MAX) errors.phone = [`Must be at most ${PHONE_MAX} characters.`];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return { email, normalized: normalizeEmail(email), name, phone };
}

function findLead(db: Queryable, agentId: string, normalized: string): Promise<LeadRow | undefined> {
  return db
    .selectFrom('leads')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('email_normalized', '=', normalized)
    .forUpdate()
    .executeTakeFirst();
}

/** One delivery row and job per active webhook of the workspace subscribed to `lead.captured`. */
async function queueWebhooks(trx: Queryable, queue: JobQueue, lead: LeadRow, now: Date): Promise<void> {
  const hooks = await trx
    .selectFrom('webhooks')
    .select('id')
    .where('workspace_id', '=', lead.workspace_id)
    .where('is_active', '=', true)
    .where(sql<boolean>`events @> array[${LEAD_CAPTURED_EVENT}]::text[]`)
    .orderBy('id')
    .execute();
  if (hooks.length === 0) return;
  const rows = hooks.map((hook) => {
    const id = newId();
    const event: TLeadCapturedEvent = {
      id,
      event: LEAD_CAPTURED_EVENT,
      created_at: now.toISOString(),
      data: { lead: toLeadRecord(lead) },
    };
    return {
      id,
      workspace_id: lead.workspace_id,
      webhook_id: hook.id,
      event: LEAD_CAPTURED_EVENT,
      subject_id: lead.id,
      payload: JSON.stringify(event),
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
}

/** Queues the site push of a lead; keyed per lead, so repeats collapse. */
async function queuePush(trx: Queryable, queue: JobQueue, leadId: string): Promise<void> {
  await queue.send(pushLeadSpec, { leadId }, { key: leadId, db: trx });
}

/** Runs `work` in the caller's transaction, or in a new one (PGlite has one connection: never both). */
function inTransaction<T>(db: Queryable, work: (trx: Queryable) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
