import { type Kysely, sql, type Transaction } from 'kysely';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { AppError, validationErrorFromZod } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';
import type { Actor } from '../context.js';
import { createUser, createWorkspace } from './accounts.js';
import { createApiToken } from './api-tokens.js';

/** The rules of a new password, wherever one is set (bootstrap, setup, password reset). */
export const ZNewPassword = z
  .string()
  .min(8, 'The password must be at least 8 characters.')
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, 'The password must be at most 72 bytes.');

/** Input of `cli bootstrap`. */
export const ZBootstrapInput = z.strictObject({
  email: z.email().max(254),
  password: ZNewPassword,
  workspace: z.string().trim().min(1).max(120),
});
export type TBootstrapInput = z.infer<typeof ZBootstrapInput>;

/** What bootstrap prints with `--json`. */
export type BootstrapResult = {
  user: { id: string; email: string };
  workspace: { id: string; name: string; slug: string };
  admin_token: string;
};

/** Advisory lock key of first-run setup: two setups at once create one first user, not two. */
const SETUP_LOCK_KEY = 7_204_113_903;

/**
 * Creates a user as the owner of a new workspace, plus an API token with ability `admin`.
 * The first user of the installation becomes a platform admin. One transaction: all or nothing.
 */
export async function bootstrap(options: {
  db: Kysely<DB>;
  clock: Clock;
  input: unknown;
  bcryptCost: number;
}): Promise<BootstrapResult> {
  const input = parseBootstrapInput(options.input);
  return options.db.transaction().execute(async (trx) => {
    const actor = { type: 'cli', id: null } as const;
    const { user, workspace } = await createOwner(trx, input, options.bcryptCost, actor, 'cli');
    const token = await createApiToken(
      { db: options.db, clock: options.clock, workspaceId: workspace.id, actor },
      { name: 'bootstrap admin', abilities: ['admin'], createdByUserId: user.id },
      trx,
    );
    return { user: { id: user.id, email: user.email }, workspace, admin_token: token.token };
  });
}

/**
 * First-run setup from the console: the same user, workspace and membership as {@link bootstrap}
 * (the user becomes a platform admin), without an API token (the console signs in instead).
 * Refused with 409 `conflict` once any user exists, checked under a lock so that two setups at
 * once make one user.
 */
export async function setupFirstUser(options: {
  db: Kysely<DB>;
  input: unknown;
  bcryptCost: number;
}): Promise<{ user: { id: string; email: string }; workspace: { id: string; name: string; slug: string } }> {
  const input = parseBootstrapInput(options.input);
  return options.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${SETUP_LOCK_KEY})`.execute(trx);
    if (!(await hasNoUsers(trx))) throw alreadySetUp();
    const { user, workspace } = await createOwner(trx, input, options.bcryptCost, SYSTEM_ACTOR, 'setup');
    return { user: { id: user.id, email: user.email }, workspace };
  });
}

const SYSTEM_ACTOR = { type: 'system', id: null } as const;

/** The 409 of a setup after the first user exists. */
export function alreadySetUp(): AppError {
  return new AppError('conflict', { message: 'The service is already set up: sign in instead.' });
}

function parseBootstrapInput(input: unknown): TBootstrapInput {
  const parsed = ZBootstrapInput.safeParse(input);
  if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
  return parsed.data;
}

async function createOwner(
  trx: Transaction<DB>,
  input: TBootstrapInput,
  bcryptCost: number,
  actor: Actor,
  via: 'cli' | 'setup',
) {
  const isFirstUser = await hasNoUsers(trx);
  const workspace = await createWorkspace(trx, input.workspace);
  const user = await createUser(
    trx,
    { email: input.email, password: input.password, bcryptCost },
    { role: isFirstUser ? 'admin' : 'user', defaultWorkspaceId: workspace.id },
  );
  await trx
    .insertInto('memberships')
    .values({ workspace_id: workspace.id, user_id: user.id, role: 'owner' })
    .execute();
  await recordAudit(trx, {
    workspaceId: workspace.id,
    actor,
    action: 'workspace.bootstrapped',
    target: { type: 'user', id: user.id },
    // The CLI's record is unchanged; a console setup says where it came from.
    metadata: {
      email: user.email,
      workspace: workspace.slug,
      platform_role: user.role,
      ...(via === 'setup' ? { via } : {}),
    },
  });
  return { user, workspace };
}

/** Whether the installation has no users yet (the service then logs how to create the first admin). */
export async function hasNoUsers(db: Kysely<DB> | Transaction<DB>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) === undefined;
}
