import { z } from 'zod';
import { MEMBERSHIP_ROLES, type TMembershipRole } from './account.js';
import { storable, zText } from './text.js';

/**
 * What an admin route needs. Every admin route declares one; the caller's workspace role decides
 * (see docs/roles.md). An API token with the `admin` ability acts with the rights of `admin`.
 */
export const PERMISSIONS = [
  /** The caller's own profile, two-factor, workspaces and sign-in: every member. */
  'account.self',
  /** Read the workspace's agents, knowledge, conversations, leads, questions and plan. */
  'workspace.read',
  /** Take over conversations: claim, reply, release. */
  'conversations.reply',
  /** Edit knowledge: KB articles, uploads, corrections, questions, golden sets, test answers. */
  'knowledge.edit',
  /** Configure the workspace: agents, sources, settings, webhooks, LLM key, API tokens, audit log. */
  'workspace.configure',
  /** Members and invites (only an owner touches owners). */
  'members.manage',
] as const;
export const ZPermission = z.enum(PERMISSIONS);
export type TPermission = z.infer<typeof ZPermission>;

/** The permissions of each workspace role: the roles matrix of docs/roles.md. */
export const ROLE_PERMISSIONS: Readonly<Record<TMembershipRole, readonly TPermission[]>> = {
  owner: PERMISSIONS,
  admin: PERMISSIONS,
  editor: ['account.self', 'workspace.read', 'conversations.reply', 'knowledge.edit'],
  viewer: ['account.self', 'workspace.read'],
};

/** Whether a workspace role has a permission. */
export function roleCan(role: TMembershipRole, permission: TPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

/** The roles a caller of `role` may give (invite as, or change a member to): only an owner makes owners. */
export function assignableRoles(role: TMembershipRole): TMembershipRole[] {
  if (role === 'owner') return [...MEMBERSHIP_ROLES];
  if (roleCan(role, 'members.manage')) return MEMBERSHIP_ROLES.filter((r) => r !== 'owner');
  return [];
}

/** A member of the workspace, as `GET /api/v1/admin/members` lists them. */
export const ZMember = z.object({
  user_id: zText(),
  email: zText(),
  name: zText(),
  role: z.enum(MEMBERSHIP_ROLES),
  joined_at: zText().describe('When the user joined the workspace'),
});
export type TMember = z.infer<typeof ZMember>;

/** Body of `PATCH /api/v1/admin/members/:id`: the new role, nothing else (unknown keys are rejected). */
export const ZMemberUpdate = z.strictObject({ role: z.enum(MEMBERSHIP_ROLES) });
export type TMemberUpdate = z.infer<typeof ZMemberUpdate>;

/** A pending invite, as the members page lists it (never its token). */
export const ZInvite = z.object({
  id: zText(),
  email: zText(),
  role: z.enum(MEMBERSHIP_ROLES),
  invited_by_user_id: zText().nullable(),
  created_at: zText(),
  expires_at: zText(),
});
export type TInvite = z.infer<typeof ZInvite>;

/** Body of `POST /api/v1/admin/invites`: who, and with which role. */
export const ZInviteCreate = z.strictObject({
  email: storable(z.email().max(254)),
  role: z.enum(MEMBERSHIP_ROLES),
});
export type TInviteCreate = z.infer<typeof ZInviteCreate>;

const ZInviteTokenField = zText()
  .trim()
  .min(1, 'The invite link is incomplete: open it from the mail again.')
  .max(2000);

/** Body of `POST /api/v1/admin/invites/inspect`: the token from the mailed link. */
export const ZInviteInspect = z.strictObject({ token: ZInviteTokenField });
export type TInviteInspect = z.infer<typeof ZInviteInspect>;

/** What the accept page shows of an open invite before it is accepted. */
export const ZInviteView = z.object({
  workspace_name: zText(),
  email: zText(),
  role: z.enum(MEMBERSHIP_ROLES),
  account_exists: z
    .boolean()
    .describe('true: sign in as this email, then accept; false: choose a name and password'),
  expires_at: zText(),
});
export type TInviteView = z.infer<typeof ZInviteView>;

/**
 * Body of `POST /api/v1/admin/invites/accept`. A new account also sends `name` and `password`
 * (the rules of sign-up); nothing else is accepted (unknown keys, such as `role`, are refused).
 */
export const ZInviteAccept = z.strictObject({
  token: ZInviteTokenField,
  name: zText().trim().min(1, 'Enter your name.').max(120).optional(),
  password: zText()
    .min(8, 'The password must be at least 8 characters.')
    .refine((value) => new TextEncoder().encode(value).length <= 72, 'The password must be at most 72 bytes.')
    .optional(),
});
export type TInviteAccept = z.infer<typeof ZInviteAccept>;

/** What accepting answers: the workspace joined, with which role, and whether an account was made. */
export const ZInviteAccepted = z.object({
  workspace_id: zText(),
  workspace_name: zText(),
  email: zText(),
  role: z.enum(MEMBERSHIP_ROLES),
  created_account: z.boolean(),
});
export type TInviteAccepted = z.infer<typeof ZInviteAccepted>;
