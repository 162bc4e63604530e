import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Clock } from '../../clock.js';
import type { DB } from '../../db/schema.js';
import { validationErrorFromZod } from '../../errors/app-error.js';
import { recordAudit } from '../audit.js';
import { createUser, createWorkspace } from './accounts.js';
import { createApiToken } from './api-tokens.js';

/** Input of `cli bootstrap`. */
export const ZBootstrapInput = z.strictObject({
  email: z.email().max(254),
  password: z
    .string()
    .min(8, 'The password must be at least 8 characters.')
    .refine((value) => Buffer.byteLength(value, 'utf8') <= 72, 'The password must be at most 72 bytes.'),
  workspace: z.string().trim().min(1).max(120),
});
export type TBootstrapInput = z.infer<typeof ZBootstrapInput>;

/** What bootstrap prints with `--json`. */
export type BootstrapResult = {
  user: { id: string; email: string };
  workspace: { id: string; name: string; slug: string };
  admin_token: string;
};

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
  const parsed = ZBootstrapInput.safeParse(options.input);
  if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
  const input = parsed.data;
  return options.db.transaction().execute(async (trx) => {
    const isFirstUser =
      (await trx.selectFrom('users').select('id').limit(1).executeTakeFirst()) === undefined;
    const workspace = await createWorkspace(trx, input.workspace);
    const user = await createUser(
      trx,
      { email: input.email, password: input.password, bcryptCost: options.bcryptCost },
      { role: isFirstUser ? 'admin' : 'user', defaultWorkspaceId: workspace.id },
    );
    await trx
      .insertInto('memberships')
      .values({ workspace_id: workspace.id, user_id: user.id, role: 'owner' })
      .execute();
    const actor = { type: 'cli', id: null } as const;
    await recordAudit(trx, {
      workspaceId: workspace.id,
      actor,
      action: 'workspace.bootstrapped',
      target: { type: 'user', id: user.id },
      metadata: { email: user.email, workspace: workspace.slug, platform_role: user.role },
    });
    const token = await createApiToken(
      { db: options.db, clock: options.clock, workspaceId: workspace.id, actor },
      { name: 'bootstrap admin', abilities: ['admin'], createdByUserId: user.id },
      trx,
    );
    return { user: { id: user.id, email: user.email }, workspace, admin_token: token.token };
  });
}

/** Whether the installation has no users yet (the service then logs how to create the first admin). */
export async function hasNoUsers(db: Kysely<DB>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) === undefined;
}
