import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { TTwoFactorSetup, TTwoFactorStatus } from '@service/contract';
import type { Kysely } from 'kysely';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Queryable } from '../../db/queryable.js';
import type { DB, UserRow } from '../../db/schema.js';
import { AppError, notFound, validationError } from '../../errors/app-error.js';
import type { SecretKeyring } from '../../security/secret-keyring.js';
import { recordAudit } from '../audit.js';
import { type Actor, iso } from '../context.js';
import { RECOVERY_CODES_PURPOSE, TOTP_SECRET_PURPOSE } from '../sealed-secrets.js';

/** The issuer authenticator apps show next to the account. */
const ISSUER = 'Chat agent service';
/** Codes one period before or after the current one still pass (clock drift). */
const TOLERANCE_SECONDS = 30;
const RECOVERY_CODE_COUNT = 10;

/** What a two-factor change needs: the database, the keyring, the acting user and the clock. */
export type TwoFactorContext = {
  db: Kysely<DB>;
  keys: SecretKeyring;
  userId: string;
  workspaceId: string;
  actor: Actor;
  now: Date;
  requestId?: string | undefined;
};

/** The code or recovery code a sign-in or a change offers. */
export type SecondFactor = { code?: string | undefined; recovery_code?: string | undefined };

/** Whether two-factor is on for a user, and how many recovery codes are left. */
export async function twoFactorStatus(
  db: Queryable,
  keys: SecretKeyring,
  userId: string,
): Promise<TTwoFactorStatus> {
  const user = await userRow(db, userId);
  const left = user.recovery_codes_sealed ? openCodes(keys, user.id, user.recovery_codes_sealed).length : 0;
  return {
    enabled: user.totp_enabled_at !== null,
    enabled_at: user.totp_enabled_at ? iso(user.totp_enabled_at) : null,
    recovery_codes_left: left,
  };
}

/**
 * Starts a setup: a new secret, kept apart until `confirmTwoFactor` sees a code from it. Answers
 * the secret and its `otpauth://` address (for a QR code). 409 while two-factor is on.
 */
export async function beginTwoFactor(context: TwoFactorContext): Promise<TTwoFactorSetup> {
  const user = await userRow(context.db, context.userId);
  if (user.totp_enabled_at) throw new AppError('conflict', { message: 'Two-factor sign-in is already on.' });
  const secret = generateSecret();
  await context.db
    .updateTable('users')
    .set({ totp_pending_sealed: context.keys.seal(secret, TOTP_SECRET_PURPOSE, user.id) })
    .where('id', '=', user.id)
    .execute();
  return { secret, otpauth_url: generateURI({ issuer: ISSUER, label: user.email, secret }) };
}

/**
 * Confirms a setup with a code from the new secret: two-factor is on from now, and the answer
 * holds the recovery codes, shown this once (each works once, in place of a code). Audited.
 */
export async function confirmTwoFactor(context: TwoFactorContext, code: string): Promise<string[]> {
  return context.db.transaction().execute(async (trx) => {
    const user = await userRow(trx, context.userId, true);
    if (user.totp_enabled_at)
      throw new AppError('conflict', { message: 'Two-factor sign-in is already on.' });
    if (!user.totp_pending_sealed) {
      throw new AppError('conflict', { message: 'Start the setup first (POST /me/two-factor).' });
    }
    const secret = context.keys.open(user.totp_pending_sealed, TOTP_SECRET_PURPOSE, user.id);
    const step = await totpStep(secret, code, context.now, null);
    if (step === null) throw validationError({ code: ['The code does not match. Try the current one.'] });
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await trx
      .updateTable('users')
      .set({
        totp_secret_sealed: context.keys.seal(secret, TOTP_SECRET_PURPOSE, user.id),
        totp_pending_sealed: null,
        totp_enabled_at: context.now,
        totp_last_step: step,
        recovery_codes_sealed: sealCodes(context.keys, user.id, recoveryCodes),
      })
      .where('id', '=', user.id)
      .execute();
    await audit(trx, context, 'two_factor.enabled');
    return recoveryCodes;
  });
}

/** Turns two-factor off; it takes a current code or a recovery code. Audited. */
export async function disableTwoFactor(context: TwoFactorContext, factor: SecondFactor): Promise<void> {
  await context.db.transaction().execute(async (trx) => {
    const user = await userRow(trx, context.userId, true);
    if (!user.totp_enabled_at) throw new AppError('conflict', { message: 'Two-factor sign-in is off.' });
    if (!(await checkSecondFactor(trx, context.keys, user, factor, context.now))) {
      throw validationError({ code: ['The code does not match.'] });
    }
    await trx
      .updateTable('users')
      .set({
        totp_secret_sealed: null,
        totp_pending_sealed: null,
        totp_enabled_at: null,
        totp_last_step: null,
        recovery_codes_sealed: null,
      })
      .where('id', '=', user.id)
      .execute();
    await audit(trx, context, 'two_factor.disabled');
  });
}

/**
 * Whether `factor` is a valid second factor for `user`, consuming what it used: a TOTP code of
 * a time step after the last accepted one (so a code works once), or an unused recovery code
 * (removed). Run it inside the caller's transaction with the user's row locked.
 */
export async function checkSecondFactor(
  db: Queryable,
  keys: SecretKeyring,
  user: UserRow,
  factor: SecondFactor,
  now: Date,
): Promise<boolean> {
  if (factor.code && user.totp_secret_sealed) {
    const secret = keys.open(user.totp_secret_sealed, TOTP_SECRET_PURPOSE, user.id);
    const last = user.totp_last_step === null ? null : Number(user.totp_last_step);
    const step = await totpStep(secret, factor.code, now, last);
    if (step === null) return false;
    await db.updateTable('users').set({ totp_last_step: step }).where('id', '=', user.id).execute();
    return true;
  }
  if (factor.recovery_code && user.recovery_codes_sealed) {
    const codes = openCodes(keys, user.id, user.recovery_codes_sealed);
    const given = normalizeRecoveryCode(factor.recovery_code);
    const index = codes.findIndex((code) => sameText(code, given));
    if (index < 0) return false;
    codes.splice(index, 1);
    await db
      .updateTable('users')
      .set({ recovery_codes_sealed: sealCodes(keys, user.id, codes) })
      .where('id', '=', user.id)
      .execute();
    return true;
  }
  return false;
}

/** The time step of a valid 6-digit `code` later than `after`, or null. */
async function totpStep(
  secret: string,
  code: string,
  now: Date,
  after: number | null,
): Promise<number | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    ...(after === null ? {} : { afterTimeStep: after }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}

/** A recovery code: ten characters of an unambiguous alphabet, as `xxxxx-xxxxx`. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** Recovery codes compare without case, spaces or the dash. */
function normalizeRecoveryCode(code: string): string {
  const bare = code.toLowerCase().replace(/[\s-]/g, '');
  return bare.length === 10 ? `${bare.slice(0, 5)}-${bare.slice(5)}` : bare;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function sealCodes(keys: SecretKeyring, userId: string, codes: string[]): string {
  return keys.seal(JSON.stringify(codes), RECOVERY_CODES_PURPOSE, userId);
}

function openCodes(keys: SecretKeyring, userId: string, sealed: string): string[] {
  const parsed: unknown = JSON.parse(keys.open(sealed, RECOVERY_CODES_PURPOSE, userId));
  return Array.isArray(parsed) ? parsed.filter((code): code is string => typeof code === 'string') : [];
}

/** A user's row, locked for update when asked (a second factor is consumed under the lock). */
export async function userRow(db: Queryable, userId: string, forUpdate = false): Promise<UserRow> {
  let query = db.selectFrom('users').selectAll().where('id', '=', userId);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

async function audit(db: Queryable, context: TwoFactorContext, action: string): Promise<void> {
  await recordAudit(db, {
    workspaceId: context.workspaceId,
    actor: context.actor,
    action,
    target: { type: 'user', id: context.userId },
    requestId: context.requestId,
  });
}
