import assert from 'node:assert/strict';
import type { TMembershipRole } from '@service/contract';
import { newId } from '../../src/security/ids.js';
import { createUser } from '../../src/services/accounts/accounts.js';
import { SESSION_COOKIE } from '../../src/services/accounts/admin-sessions.js';
import { postSignIn } from './admin-session.js';
import type { Tenant, TestApp } from './test-app.js';

export const MEMBER_PASSWORD = 'correct horse battery';

/** A signed-in member: the user, and the headers a session request sends (cookie + CSRF). */
export type SignedInMember = {
  userId: string;
  email: string;
  role: TMembershipRole;
  headers: Record<string, string>;
};

let address = 0;

/** Adds a new user to the tenant's workspace with `role` (their default workspace). */
export async function addMember(t: TestApp, tenant: Tenant, role: TMembershipRole) {
  const email = `${role}-${newId().toLowerCase()}@example.com`;
  const user = await createUser(
    t.database.db,
    { email, password: MEMBER_PASSWORD, name: `A ${role}`, bcryptCost: 4 },
    { role: 'user', defaultWorkspaceId: tenant.workspace.id },
  );
  await t.database.db
    .insertInto('memberships')
    .values({ workspace_id: tenant.workspace.id, user_id: user.id, role })
    .execute();
  return { userId: user.id, email };
}

/** Signs a user in (each call from its own address) and returns the session's headers. */
export async function signInMember(t: TestApp, email: string): Promise<Record<string, string>> {
  address += 1;
  const res = await postSignIn(
    t.app,
    { email, password: MEMBER_PASSWORD },
    `10.9.${address >> 8}.${address & 255}`,
  );
  assert.equal(res.statusCode, 200, res.body);
  const secret = res.cookies.find((c) => c.name === SESSION_COOKIE)?.value ?? '';
  return { cookie: `${SESSION_COOKIE}=${secret}`, 'x-csrf-token': res.json().data.csrf_token };
}

/** A new member of `role`, signed in. */
export async function signedInMember(
  t: TestApp,
  tenant: Tenant,
  role: TMembershipRole,
): Promise<SignedInMember> {
  const { userId, email } = await addMember(t, tenant, role);
  return { userId, email, role, headers: await signInMember(t, email) };
}
