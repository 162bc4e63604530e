import { z } from 'zod';
import { ZDateTimeFilter } from './account.js';
import { storable, zText } from './text.js';

/** The events an outgoing webhook can subscribe to. */
export const WEBHOOK_EVENTS = [
  'lead.captured',
  'agent.quality_regressed',
  'conversation.handoff_requested',
] as const;
/** One of {@link WEBHOOK_EVENTS}. */
export type TWebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Header naming the event of a webhook delivery. */
export const WEBHOOK_EVENT_HEADER = 'x-service-event';
/** Header carrying the delivery id (the same on every retry and redelivery: deduplicate on it). */
export const WEBHOOK_DELIVERY_HEADER = 'x-service-delivery';
/** Every webhook signing secret starts with this; the whole string is the HMAC key. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Most webhooks one workspace may register. */
export const WEBHOOKS_PER_WORKSPACE_MAX = 20;

/**
 * How a webhook's deliveries are written: `json` the signed event `{id, event, created_at, data}`;
 * `slack` a Slack incoming-webhook body `{text, blocks}` (still signed with the same header).
 */
export const WEBHOOK_FORMATS = ['json', 'slack'] as const;
export type TWebhookFormat = (typeof WEBHOOK_FORMATS)[number];
const ZWebhookFormat = z
  .enum(WEBHOOK_FORMATS)
  .describe('json: the signed event; slack: a Slack incoming-webhook body {text, blocks}');

/** Body of `POST /api/v1/admin/webhooks`. */
export const ZWebhookCreate = z.strictObject({
  url: storable(z.url({ protocol: /^https?$/, error: 'Must be an http or https URL.' }).max(2048)),
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .max(WEBHOOK_EVENTS.length * 4)
    .transform((events) => [...new Set(events)]),
  format: ZWebhookFormat.default('json'),
});
export type TWebhookCreate = z.infer<typeof ZWebhookCreate>;

/** A registered webhook (never with its secret). */
export const ZWebhook = z.object({
  id: zText(),
  url: zText(),
  events: z.array(zText()),
  is_active: z.boolean(),
  format: ZWebhookFormat,
  created_at: zText(),
  updated_at: zText(),
});
export type TWebhook = z.infer<typeof ZWebhook>;

/**
 * Body of `PATCH /api/v1/admin/webhooks/{id}`: turn a webhook off (deliveries stop) or on again,
 * and/or change its delivery format; at least one of the two.
 */
export const ZWebhookUpdate = z
  .strictObject({ is_active: z.boolean().optional(), format: ZWebhookFormat.optional() })
  .refine((body) => body.is_active !== undefined || body.format !== undefined, {
    message: 'Give is_active, format or both.',
    path: ['is_active'],
  });
export type TWebhookUpdate = z.infer<typeof ZWebhookUpdate>;

/** The creation answer: the webhook plus its signing secret, shown this once. */
export const ZWebhookCreated = ZWebhook.extend({ secret: zText() });
export type TWebhookCreated = z.infer<typeof ZWebhookCreated>;

/** One delivery of an event to a webhook, with the outcome of its last attempt. */
export const ZWebhookDelivery = z.object({
  id: zText(),
  webhook_id: zText(),
  event: zText(),
  subject_id: zText().nullable(),
  /** pending (queued or retrying), delivered (a 2xx answer), failed (no retries left). */
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: zText().nullable(),
  last_response_excerpt: zText()
    .nullable()
    .describe(
      "The start of the endpoint's last answer body (at most 2,000 characters); null before any answer",
    ),
  request_body: zText().describe('The JSON body this delivery sends (signed with X-Service-Signature)'),
  delivered_at: zText().nullable(),
  created_at: zText(),
  updated_at: zText(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;

/** A lead as events carry it. */
export const ZLeadRecord = z.object({
  id: zText(),
  email: zText(),
  name: zText(),
  phone: zText(),
  agent_id: zText(),
  conversation_id: zText().nullable(),
  created_at: zText(),
});
export type TLeadRecord = z.infer<typeof ZLeadRecord>;

/** A lead as the admin API lists it: the event fields plus where it came from and its site push. */
export const ZAdminLead = ZLeadRecord.extend({
  visitor_id: zText().nullable(),
  site_user_id: z.number().int().nullable(),
  pushed_at: zText().nullable(),
  push_error: zText().nullable(),
  updated_at: zText(),
});
export type TAdminLead = z.infer<typeof ZAdminLead>;

/** The JSON body of a `lead.captured` delivery (signed with X-Service-Signature). */
export const ZLeadCapturedEvent = z.object({
  id: zText(),
  event: z.literal('lead.captured'),
  created_at: zText(),
  data: z.object({ lead: ZLeadRecord }),
});
export type TLeadCapturedEvent = z.infer<typeof ZLeadCapturedEvent>;

/** Longest visitor message a `conversation.handoff_requested` event carries (longer ones are cut). */
export const HANDOFF_MESSAGE_MAX = 1000;

/** What a `conversation.handoff_requested` delivery carries: the conversation, and where to answer it. */
export const ZHandoffRequestedData = z.object({
  conversation_id: zText(),
  agent_id: zText(),
  agent_name: zText(),
  last_visitor_message: zText()
    .nullable()
    .describe(`The visitor's last message, at most ${HANDOFF_MESSAGE_MAX} characters; null when none`),
  page_url: zText().nullable(),
  requested_at: zText(),
  operators_online: z
    .number()
    .int()
    .describe('Members who may reply with the console open when it was asked'),
  console_url: zText().describe("The conversation's page in the console"),
});
export type THandoffRequestedData = z.infer<typeof ZHandoffRequestedData>;

/** The JSON body of a `conversation.handoff_requested` delivery (signed with X-Service-Signature). */
export const ZHandoffRequestedEvent = z.object({
  id: zText(),
  event: z.literal('conversation.handoff_requested'),
  created_at: zText(),
  data: ZHandoffRequestedData,
});
export type THandoffRequestedEvent = z.infer<typeof ZHandoffRequestedEvent>;

/** Longest search text of the leads list and export. */
export const LEAD_SEARCH_MAX = 200;

const LEAD_FILTER_SHAPE = {
  agent_id: zText().min(1).max(64).optional(),
  q: zText().trim().max(LEAD_SEARCH_MAX).optional().describe('Text found in the email, name or phone'),
  from: ZDateTimeFilter.optional().describe('Leads captured at or after this time'),
  to: ZDateTimeFilter.optional().describe('Leads captured before this time'),
};

/** Whether a date range is empty-or-forward (`to` later than `from`). */
function isForwardRange(query: { from?: string | undefined; to?: string | undefined }): boolean {
  return !query.from || !query.to || Date.parse(query.from) < Date.parse(query.to);
}
const FORWARD_RANGE = { message: 'Must be later than from.', path: ['to'] };

/**
 * Query of `GET /api/v1/admin/leads/export` (CSV), and the filters of the list (combined with
 * AND): one agent's, a search in email, name and phone (case-insensitive substring, matched
 * literally), and a date range on `created_at` (`from` inclusive, `to` exclusive).
 */
export const ZLeadFilters = z.object(LEAD_FILTER_SHAPE).refine(isForwardRange, FORWARD_RANGE);
export type TLeadFilters = z.infer<typeof ZLeadFilters>;

/** Query of `GET /api/v1/admin/leads`: the filters, newest first, keyset paging. */
export const ZLeadListQuery = z
  .object({
    ...LEAD_FILTER_SHAPE,
    cursor: zText().min(1).max(64).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(25),
  })
  .refine(isForwardRange, FORWARD_RANGE);

/** Answer of `GET /api/v1/admin/leads`. */
export const ZLeadPage = z.object({
  data: z.array(ZAdminLead),
  meta: z.object({ next_cursor: zText().nullable() }),
});
