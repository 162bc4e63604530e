import { z } from 'zod';

/** Workspace roles, strongest first. */
export const MEMBERSHIP_ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export const ZMembershipRole = z.enum(MEMBERSHIP_ROLES);
export type TMembershipRole = z.infer<typeof ZMembershipRole>;

/** Platform roles of a user (distinct from workspace membership roles). */
export const USER_ROLES = ['user', 'admin'] as const;

/** A workspace. */
export const ZWorkspace = z.object({ id: z.string(), name: z.string(), slug: z.string() });
export type TWorkspace = z.infer<typeof ZWorkspace>;

/** A user as the admin API shows it. */
export const ZUser = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(USER_ROLES),
  byok_enabled: z.boolean(),
  default_workspace_id: z.string().nullable(),
  created_at: z.string(),
});
export type TUser = z.infer<typeof ZUser>;

/**
 * Body of `PATCH /api/v1/admin/me`. Only profile fields; `role`, `byok_enabled` and
 * `default_workspace_id` are privileged and never accepted here (unknown keys are rejected).
 */
export const ZProfileUpdate = z.strictObject({
  name: z.string().trim().max(120).optional(),
  email: z.email().max(254).optional(),
});
export type TProfileUpdate = z.infer<typeof ZProfileUpdate>;

/** An audit record: who did what to which target. */
export const ZAuditLog = z.object({
  id: z.string(),
  actor_type: z.string(),
  actor_id: z.string().nullable(),
  action: z.string(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  request_id: z.string().nullable(),
  created_at: z.string(),
});
export type TAuditLog = z.infer<typeof ZAuditLog>;

/** A six-digit code from an authenticator app. */
const ZTotpCode = z.string().regex(/^\d{6}$/, 'A code is six digits.');
/** A recovery code (`xxxxx-xxxxx`; case, spaces and the dash do not matter). */
const ZRecoveryCode = z.string().trim().min(10).max(20);

/**
 * Body of `POST /api/v1/admin/session` (sign in with a password). With two-factor on, also
 * `code` (from the authenticator app) or `recovery_code`.
 */
export const ZSessionLogin = z.strictObject({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(200),
  code: ZTotpCode.optional(),
  recovery_code: ZRecoveryCode.optional(),
});
export type TSessionLogin = z.infer<typeof ZSessionLogin>;

/** An admin session as its owner sees it: who, where, until when, and the CSRF token to send. */
export const ZAdminSession = z.object({
  user: ZUser,
  workspace: ZWorkspace,
  csrf_token: z
    .string()
    .describe('Send it as the X-CSRF-Token header on every request that changes something'),
  expires_at: z.string(),
});
export type TAdminSession = z.infer<typeof ZAdminSession>;

/** `GET /api/v1/admin/me/two-factor`: whether two-factor sign-in is on. */
export const ZTwoFactorStatus = z.object({
  enabled: z.boolean(),
  enabled_at: z.string().nullable(),
  recovery_codes_left: z.number().int(),
});
export type TTwoFactorStatus = z.infer<typeof ZTwoFactorStatus>;

/** `POST /api/v1/admin/me/two-factor`: the new secret and its otpauth:// address (for a QR code). */
export const ZTwoFactorSetup = z.object({ secret: z.string(), otpauth_url: z.string() });
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
export const ZRecoveryCodes = z.object({ recovery_codes: z.array(z.string()) });
