import { z } from 'zod';
import { storable, zStorableJson, zText } from './text.js';

/** Workspace roles, strongest first. */
export const MEMBERSHIP_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export const ZMembershipRole = z.enum(MEMBERSHIP_ROLES);
export type TMembershipRole = z.infer<typeof ZMembershipRole>;

/** Platform roles of a user (distinct from workspace membership roles). */
export const USER_ROLES = ['user', 'admin'] as const;

/** A workspace. */
export const ZWorkspace = z.object({ id: zText(), name: zText(), slug: zText() });
export type TWorkspace = z.infer<typeof ZWorkspace>;

/** A user as the admin API shows it. */
export const ZUser = z.object({
  id: zText(),
  email: zText(),
  name: zText(),
  role: z.enum(USER_ROLES),
  byok_enabled: z.boolean(),
  default_workspace_id: zText().nullable(),
  created_at: zText(),
});
export type TUser = z.infer<typeof ZUser>;

/**
 * Body of `PATCH /api/v1/admin/me`. Only profile fields; `role`, `byok_enabled` and
 * `default_workspace_id` are privileged and never accepted here (unknown keys are rejected).
 */
export const ZProfileUpdate = z.strictObject({
  name: zText().trim().max(120).optional(),
  email: storable(z.email().max(254)).optional(),
});
export type TProfileUpdate = z.infer<typeof ZProfileUpdate>;

/** An audit record: who did what to which target. */
export const ZAuditLog = z.object({
  id: zText(),
  actor_type: zText(),
  actor_id: zText().nullable(),
  action: zText(),
  target_type: zText().nullable(),
  target_id: zText().nullable(),
  metadata: z.record(zText(), zStorableJson()),
  request_id: zText().nullable(),
  on_behalf_of: zText()
    .nullable()
    .describe('The member a platform operator was viewing as (the operator is the actor); null otherwise'),
  created_at: zText(),
});
export type TAuditLog = z.infer<typeof ZAuditLog>;

/** A date-time with its offset (`2026-11-27T08:00:00Z`); date filters of the lists take these. */
export const ZDateTimeFilter = storable(
  z.iso.datetime({ offset: true, error: 'Must be an ISO 8601 date-time.' }),
);

/**
 * Query of `GET /api/v1/admin/audit-logs`: newest first, keyset paging on the id, and filters
 * that combine (AND): who (`actor_id`), what (`action`), on what (`target_type`, `target_id`)
 * and when (`from` inclusive, `to` exclusive, on `created_at`).
 */
export const ZAuditLogQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    before: zText().max(64).optional().describe('Return records older than this id (paging)'),
    action: zText().trim().min(1).max(100).optional(),
    actor_id: zText().trim().min(1).max(64).optional(),
    target_type: zText().trim().min(1).max(64).optional(),
    target_id: zText().trim().min(1).max(64).optional(),
    from: ZDateTimeFilter.optional().describe('Records written at or after this time'),
    to: ZDateTimeFilter.optional().describe('Records written before this time'),
  })
  .refine((query) => !query.from || !query.to || Date.parse(query.from) < Date.parse(query.to), {
    message: 'Must be later than from.',
    path: ['to'],
  });
export type TAuditLogQuery = z.infer<typeof ZAuditLogQuery>;

/** A six-digit code from an authenticator app. */
const ZTotpCode = zText().regex(/^\d{6}$/, 'A code is six digits.');
/** A recovery code (`xxxxx-xxxxx`; case, spaces and the dash do not matter). */
const ZRecoveryCode = zText().trim().min(10).max(20);

/**
 * Body of `POST /api/v1/admin/session` (sign in with a password). With two-factor on, also
 * `code` (from the authenticator app) or `recovery_code`.
 */
export const ZSessionLogin = z.strictObject({
  email: zText().trim().min(1).max(254),
  password: zText().min(1).max(200),
  code: ZTotpCode.optional(),
  recovery_code: ZRecoveryCode.optional(),
});
export type TSessionLogin = z.infer<typeof ZSessionLogin>;

/** What a session says of the impersonation it is (a platform operator viewing as `user`). */
export const ZImpersonation = z.object({
  operator: z.object({ id: zText(), email: zText(), name: zText() }),
  reason: zText(),
  started_at: zText(),
  expires_at: zText(),
});
export type TImpersonation = z.infer<typeof ZImpersonation>;

/** An admin session as its owner sees it: who, where, until when, and the CSRF token to send. */
export const ZAdminSession = z.object({
  user: ZUser,
  workspace: ZWorkspace,
  role: ZMembershipRole.describe("The user's role in the workspace (see docs/roles.md)"),
  csrf_token: zText().describe('Send it as the X-CSRF-Token header on every request that changes something'),
  expires_at: zText(),
  impersonation: ZImpersonation.nullable().describe(
    'Set while a platform operator views as `user` (the console shows a banner); null otherwise',
  ),
});
export type TAdminSession = z.infer<typeof ZAdminSession>;

/** `GET /api/v1/admin/me/two-factor`: whether two-factor sign-in is on. */
export const ZTwoFactorStatus = z.object({
  enabled: z.boolean(),
  enabled_at: zText().nullable(),
  recovery_codes_left: z.number().int(),
});
export type TTwoFactorStatus = z.infer<typeof ZTwoFactorStatus>;

/** `POST /api/v1/admin/me/two-factor`: the new secret and its otpauth:// address (for a QR code). */
export const ZTwoFactorSetup = z.object({ secret: zText(), otpauth_url: zText() });
export type TTwoFactorSetup = z.infer<typeof ZTwoFactorSetup>;

/** Body of `POST /api/v1/admin/me/two-factor/confirm`. */
export const ZTwoFactorConfirm = z.strictObject({ code: ZTotpCode });

/** Body of `DELETE /api/v1/admin/me/two-factor`: a current code or a recovery code. */
export const ZTwoFactorDisable = z
  .strictObject({ code: ZTotpCode.optional(), recovery_code: ZRecoveryCode.optional() })
  .refine((body) => body.code !== undefined || body.recovery_code !== undefined, {
    message: 'Send a code or a recovery code.',
    path: ['code'],
  });

/** The recovery codes, shown once when two-factor is turned on. */
export const ZRecoveryCodes = z.object({ recovery_codes: z.array(zText()) });

/** `GET /api/v1/admin/setup`: whether the installation still has no user (the console then shows its setup form). */
export const ZSetupStatus = z.object({ needs_setup: z.boolean() });
export type TSetupStatus = z.infer<typeof ZSetupStatus>;

/** A one-time setup code as the service prints it: four groups of four letters and digits. */
export const SETUP_CODE_PATTERN = /^[A-Z2-9]{4}(?:-[A-Z2-9]{4}){3}$/;

/**
 * Body of `POST /api/v1/admin/setup`: the first user and workspace, created like `cli bootstrap`.
 * `setup_code` is the one the service logged at start (and wrote to `DATA_DIR/setup-code`).
 */
export const ZSetupRequest = z.strictObject({
  setup_code: zText().trim().min(1, 'Enter the setup code from the service’s log.').max(40),
  email: storable(z.email().max(254)),
  password: zText()
    .min(8, 'The password must be at least 8 characters.')
    .refine(
      (value) => new TextEncoder().encode(value).length <= 72,
      'The password must be at most 72 bytes.',
    ),
  workspace_name: zText().trim().min(1, 'Name the workspace.').max(120),
});
export type TSetupRequest = z.infer<typeof ZSetupRequest>;

/** One of the signed-in user's workspaces, as `GET /api/v1/admin/account/workspaces` lists it. */
export const ZWorkspaceMembership = ZWorkspace.extend({
  role: ZMembershipRole,
  current: z.boolean().describe("The session's workspace"),
  can_switch: z
    .boolean()
    .describe('The role may use the console (every role may; what it can do there depends on it)'),
});
export type TWorkspaceMembership = z.infer<typeof ZWorkspaceMembership>;

/** Body of `POST /api/v1/admin/account/workspace`: the workspace to work in from now on. */
export const ZWorkspaceSwitch = z.strictObject({ workspace_id: zText().trim().min(1).max(64) });
export type TWorkspaceSwitch = z.infer<typeof ZWorkspaceSwitch>;

/** Body of `POST /api/v1/admin/password-reset`: the account's email (the answer is the same whether it exists). */
export const ZPasswordResetRequest = z.strictObject({
  email: storable(z.email().max(254)),
});
export type TPasswordResetRequest = z.infer<typeof ZPasswordResetRequest>;

/** The answer to a reset request: always the same sentence, whether or not the address has an account. */
export const ZPasswordResetRequested = z.object({ message: zText() });
export type TPasswordResetRequested = z.infer<typeof ZPasswordResetRequested>;

/** The password rules of setup, reset and change: 8 characters to 72 bytes (what bcrypt reads). */
export const ZNewPassword = zText()
  .min(8, 'The password must be at least 8 characters.')
  .refine((value) => new TextEncoder().encode(value).length <= 72, 'The password must be at most 72 bytes.');

/** Body of `POST /api/v1/admin/me/password`: the current password and the new one. */
export const ZPasswordChange = z.strictObject({
  current_password: zText().min(1, 'Enter your current password.').max(200),
  new_password: ZNewPassword,
});
export type TPasswordChange = z.infer<typeof ZPasswordChange>;

/** Body of `POST /api/v1/admin/password-reset/confirm`: the token from the mailed link and the new password. */
export const ZPasswordResetConfirm = z.strictObject({
  token: zText().trim().min(1, 'The reset link is incomplete: open it from the mail again.').max(2000),
  password: zText()
    .min(8, 'The password must be at least 8 characters.')
    .refine(
      (value) => new TextEncoder().encode(value).length <= 72,
      'The password must be at most 72 bytes.',
    ),
});
export type TPasswordResetConfirm = z.infer<typeof ZPasswordResetConfirm>;
