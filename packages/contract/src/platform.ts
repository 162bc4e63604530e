import { z } from 'zod';
import { ZMembershipRole } from './account.js';
import { ZPlanUsage } from './plan.js';
import { zText } from './text.js';

/** How long an impersonation lasts from its start; it cannot be extended. */
export const IMPERSONATION_MINUTES = 30;
/** Longest reason an operator gives for an impersonation, in characters. */
export const IMPERSONATION_REASON_MAX = 500;

/** `GET /api/v1/admin/platform/workspaces` query: a page of workspaces, newest first. */
export const ZPlatformWorkspaceQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(100),
  cursor: zText().min(1).max(64).optional().describe('meta.next_cursor of the previous page'),
});
export type TPlatformWorkspaceQuery = z.infer<typeof ZPlatformWorkspaceQuery>;

/** One workspace as a platform operator sees it: plan, usage summary and member count. */
export const ZPlatformWorkspace = z.object({
  id: zText(),
  name: zText(),
  slug: zText(),
  plan: z.object({ key: zText(), name: zText() }),
  usage: ZPlanUsage.pick({ agents: true, sources: true, messages_this_month: true, upload_bytes: true }),
  member_count: z.number().int().nonnegative(),
  created_at: zText(),
});
export type TPlatformWorkspace = z.infer<typeof ZPlatformWorkspace>;

/** A member of a workspace, as the operator chooses whom to view as. */
export const ZPlatformMember = z.object({
  id: zText(),
  email: zText(),
  name: zText(),
  role: ZMembershipRole,
});
export type TPlatformMember = z.infer<typeof ZPlatformMember>;

/** A plan a workspace can be put on (`GET /api/v1/admin/platform/plans`). */
export const ZPlatformPlan = z.object({ key: zText(), name: zText() });
export type TPlatformPlan = z.infer<typeof ZPlatformPlan>;

/** Body of `POST /api/v1/admin/platform/workspaces/{id}/plan`. */
export const ZPlatformPlanChange = z.strictObject({
  plan: zText().min(1).max(40).describe('The key of an existing plan (see the CLI plan:list)'),
});
export type TPlatformPlanChange = z.infer<typeof ZPlatformPlanChange>;

/** Answer of a plan change: the workspace's new and previous plan keys. */
export const ZPlatformPlanChanged = z.object({
  workspace_id: zText(),
  plan: zText(),
  previous_plan: zText(),
});
export type TPlatformPlanChanged = z.infer<typeof ZPlatformPlanChanged>;

/** Body of `POST /api/v1/admin/platform/impersonation`: whom to view as, where, and why. */
export const ZImpersonationStart = z.strictObject({
  workspace_id: zText().min(1).max(64),
  user_id: zText().min(1).max(64),
  reason: zText().trim().min(1, 'Say why you need to view as this member.').max(IMPERSONATION_REASON_MAX),
});
export type TImpersonationStart = z.infer<typeof ZImpersonationStart>;
