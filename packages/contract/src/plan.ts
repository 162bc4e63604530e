import { z } from 'zod';
import { zText } from './text.js';

/** A plan's limits; null means no limit. Upload storage is in bytes. */
export const ZPlanLimits = z.object({
  agents: z.number().int().nonnegative().nullable(),
  messages_per_month: z.number().int().nonnegative().nullable(),
  sources: z.number().int().nonnegative().nullable(),
  upload_bytes: z.number().int().nonnegative().nullable(),
});
export type TPlanLimits = z.infer<typeof ZPlanLimits>;

/** What a workspace uses now: agents, sources and upload storage in total, messages this month. */
export const ZPlanUsage = z.object({
  agents: z.number().int().nonnegative(),
  messages_this_month: z.number().int().nonnegative(),
  /** Visitor messages refused this month because the message limit was reached. */
  refused_messages_this_month: z.number().int().nonnegative(),
  sources: z.number().int().nonnegative(),
  upload_bytes: z.number().int().nonnegative(),
});
export type TPlanUsage = z.infer<typeof ZPlanUsage>;

/** Where a workspace's subscription stands, as the billing webhooks last reported it. */
export const ZBillingStatus = z.enum(['none', 'active', 'past_due', 'cancelled']);
export type TBillingStatus = z.infer<typeof ZBillingStatus>;

/** `GET /api/v1/admin/plan`: the workspace's plan, its limits, the usage and what is at its limit. */
export const ZWorkspacePlan = z.object({
  plan: z.object({ key: zText(), name: zText() }),
  billing_status: ZBillingStatus,
  /** The month the message count is of, `YYYY-MM` (UTC). */
  period: zText(),
  limits: ZPlanLimits,
  usage: ZPlanUsage,
  /** The limits reached (usage at or over the limit): the console shows a banner while one is. */
  at_limit: z.array(z.enum(['agents', 'messages_per_month', 'sources', 'upload_bytes'])),
});
export type TWorkspacePlan = z.infer<typeof ZWorkspacePlan>;
