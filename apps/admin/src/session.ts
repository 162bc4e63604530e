import { signal } from '@preact/signals';
import {
  roleCan,
  type TAdminSession,
  type TImpersonationStart,
  type TPermission,
  type TSessionLogin,
  ZAdminSession,
  ZSetupStatus,
} from '@service/contract';
import { ApiError, api, apiOrNoContent, apiVoid, configureApi } from './api';

/** The signed-in session; null when signed out; undefined until the first check answers. */
export const session = signal<TAdminSession | null | undefined>(undefined);
/** Whether the installation has no user yet (the setup form is the only screen then). */
export const needsSetup = signal<boolean | undefined>(undefined);
/** Set when a session ended under the user (a 401): the sign-in screen says so. */
export const sessionEnded = signal(false);
/** Set when the user signed out: sign-in then offers no way back to the page they left. */
export const signedOut = signal(false);

configureApi({
  csrfToken: () => session.value?.csrf_token ?? null,
  onUnauthenticated: () => {
    // Viewing as a member past its end: the operator's own session comes back instead.
    if (session.value?.impersonation || ending) {
      void endImpersonation();
      return;
    }
    if (session.value) sessionEnded.value = true;
    session.value = null;
  },
});

/** The end of an impersonation in flight: requests refused meanwhile wait for it, not sign out. */
let ending: Promise<void> | null = null;

/**
 * Ends viewing as a member (DELETE /session in an impersonation): the operator's own session
 * comes back, or the sign-in screen when that ended too. Called once however many ask.
 */
export function endImpersonation(): Promise<void> {
  ending ??= (async () => {
    let next: TAdminSession | null = null;
    try {
      next = await apiOrNoContent('/session', ZAdminSession, { method: 'DELETE', isSessionCall: true });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    sessionEnded.value = next === null;
    session.value = next;
  })().finally(() => {
    // Answers to requests sent before the switch may still arrive refused: let them settle.
    setTimeout(() => {
      ending = null;
    }, 2_000);
  });
  return ending;
}

/** Starts viewing the console as a member of a workspace (platform operators only). */
export async function startImpersonation(input: TImpersonationStart): Promise<void> {
  session.value = await api('/platform/impersonation', ZAdminSession, { method: 'POST', body: input });
}

/** Reads whether setup is needed and, if not, the current session (a 401 means signed out). */
export async function loadSession(): Promise<void> {
  const status = await api('/setup', ZSetupStatus, { isSessionCall: true });
  needsSetup.value = status.needs_setup;
  if (status.needs_setup) {
    session.value = null;
    return;
  }
  try {
    session.value = await api('/session', ZAdminSession, { isSessionCall: true });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) session.value = null;
    else throw error;
  }
}

/** Signs in (the service sets the HttpOnly cookie; the answer carries the CSRF token). */
export async function signIn(input: TSessionLogin): Promise<void> {
  session.value = await api('/session', ZAdminSession, { method: 'POST', body: input, isSessionCall: true });
  sessionEnded.value = false;
  signedOut.value = false;
}

/** Adopts the session the setup form opened. */
export function adoptSession(next: TAdminSession): void {
  needsSetup.value = false;
  sessionEnded.value = false;
  session.value = next;
}

/** Signs out; the session is forgotten here even when the service already ended it. */
export async function signOut(): Promise<void> {
  try {
    await apiVoid('/session', { method: 'DELETE', isSessionCall: true });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
  signedOut.value = true;
  session.value = null;
}

/** Whether the signed-in role has a permission (docs/roles.md): the nav and pages hide what it cannot do. */
export function can(permission: TPermission): boolean {
  const current = session.value;
  return current ? roleCan(current.role, permission) : false;
}
