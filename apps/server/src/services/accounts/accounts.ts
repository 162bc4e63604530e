import type { TProfileUpdate, TUser, TWorkspace } from '@service/contract';
import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Queryable } from '../../db/queryable.js';
import type { DB, UserRow } from '../../db/schema.js';
import { notFound, validationError } from '../../errors/app-error.js';
import { newId } from '../../security/ids.js';
import { hashPassword } from '../../security/passwords.js';
import { recordAudit } from '../audit.js';
import { type Actor, iso } from '../context.js';
import { firstFreeSlug, slugFamilyPattern, slugify } from '../slugs.js';

/** Reads a workspace by id. */
export async function getWorkspace(db: Queryable, workspaceId: string): Promise<TWorkspace> {
  const row = await db
    .selectFrom('workspaces')
    .select(['id', 'name', 'slug'])
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/** Creates a workspace with a unique slug (a numeric suffix is added when taken). */
export async function createWorkspace(db: Queryable, name: string): Promise<TWorkspace> {
  const base = slugify(name, { maxLength: 48, fallback: 'workspace' });
  const taken = await db
    .selectFrom('workspaces')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', slugFamilyPattern(base))]))
    .execute();
  const slug = firstFreeSlug(
    base,
    taken.map((row) => row.slug),
  );
  return db
    .insertInto('workspaces')
    .values({ id: newId(), name, slug })
    .returning(['id', 'name', 'slug'])
    .executeTakeFirstOrThrow();
}

/** Finds a user by email, case-insensitively. */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/**
 * Creates a user. Only these fields can be set; the privileged ones (`role`, `byok_enabled`,
 * `default_workspace_id`) have their own explicit parameters and no request body reaches them.
 */
export async function createUser(
  db: Queryable,
  input: { email: string; password: string; name?: string; bcryptCost: number },
  privileged: { role: 'user' | 'admin'; defaultWorkspaceId: string | null },
): Promise<UserRow> {
  if (await findUserByEmail(db, input.email)) {
    throw validationError({ email: ['The email has already been taken.'] });
  }
  return db
    .insertInto('users')
    .values({
      id: newId(),
      email: input.email,
      name: input.name ?? '',
      password_hash: await hashPassword(input.password, input.bcryptCost),
      role: privileged.role,
      default_workspace_id: privileged.defaultWorkspaceId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Reads a user for the admin API. */
export async function getUser(db: Queryable, userId: string): Promise<TUser> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  if (!row) throw notFound();
  return toUser(row);
}

/** Updates a user's own profile: name and email only, whatever else the input carries. Audited. */
export async function updateProfile(options: {
  db: Kysely<DB>;
  clock: Clock;
  userId: string;
  workspaceId: string;
  actor: Actor;
  input: TProfileUpdate;
  requestId?: string | undefined;
}): Promise<TUser> {
  const { name, email } = options.input;
  // The change and its audit record commit together or not at all.
  return options.db.transaction().execute(async (trx) => {
    if (email !== undefined) {
      const other = await findUserByEmail(trx, email);
      if (other && other.id !== options.userId)
        throw validationError({ email: ['The email has already been taken.'] });
    }
    const row = await trx
      .updateTable('users')
      .set({
        ...(name !== undefined && { name }),
        ...(email !== undefined && { email }),
        updated_at: options.clock.now(),
      })
      .where('id', '=', options.userId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw notFound();
    await recordAudit(trx, {
      workspaceId: options.workspaceId,
      actor: options.actor,
      action: 'user.profile_updated',
      target: { type: 'user', id: row.id },
      metadata: { fields: [name !== undefined && 'name', email !== undefined && 'email'].filter(Boolean) },
      requestId: options.requestId,
    });
    return toUser(row);
  });
}

function toUser(row: UserRow): TUser {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    byok_enabled: row.byok_enabled,
    default_workspace_id: row.default_workspace_id,
    created_at: iso(row.created_at),
  };
}
