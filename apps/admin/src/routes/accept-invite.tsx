import {
  type TInviteAccepted,
  type TInviteView,
  ZInviteAccept,
  ZInviteAccepted,
  ZInviteView,
} from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { Field, FormMessage } from '../components/field';
import { UsersIcon } from '../components/icons';
import { badLinkHandler, useForm } from '../components/use-form';
import { PATHS, signInPath } from '../paths';
import { loadSession, session } from '../session';

/** The invite token: from the link's fragment (`#token=…`), kept for this tab while the user signs in. */
function takeToken(): string {
  const hash = typeof location === 'undefined' ? '' : location.hash;
  const fromLink = new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
  if (fromLink) {
    sessionStorage.setItem('invite-token', fromLink);
    // Out of the address bar and the history, so it is not shared or shoulder-read by accident.
    history.replaceState(history.state, '', location.pathname);
    return fromLink;
  }
  return sessionStorage.getItem('invite-token') ?? '';
}

/**
 * The page an invite mail links to. A new email chooses a name and a password; an existing
 * account signs in (and comes back here) and accepts with one button.
 */
export function AcceptInvite() {
  const [token] = useState(takeToken);
  const [view, setView] = useState<TInviteView | null>(null);
  const [isLinkBad, setLinkBad] = useState(token === '');
  const [loadError, setLoadError] = useState<string | null>(null);
  const [done, setDone] = useState<TInviteAccepted | null>(null);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const { errors, notice, isBusy, submit } = useForm();

  useEffect(() => {
    if (!token) return;
    api('/invites/inspect', ZInviteView, { method: 'POST', body: { token }, isSessionCall: true })
      .then(setView)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 422) setLinkBad(true);
        else setLoadError(error instanceof Error ? error.message : 'Could not read the invite.');
      });
  }, [token]);

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const body = view?.account_exists ? { token } : { token, name, password };
    await submit({
      check: () => ZInviteAccept.safeParse(body),
      send: async (input) => {
        const accepted = await api('/invites/accept', ZInviteAccepted, {
          method: 'POST',
          body: input,
          isSessionCall: true,
        });
        sessionStorage.removeItem('invite-token');
        setDone(accepted);
      },
      onApiError: badLinkHandler(setLinkBad),
      fallback: 'Could not accept the invite.',
    });
  };

  const signedInAs = session.value?.user.email ?? null;
  const isRightAccount = view !== null && signedInAs?.toLowerCase() === view.email.toLowerCase();
  const title = done
    ? `You joined ${done.workspace_name}`
    : isLinkBad
      ? 'This link does not work'
      : view
        ? `Join ${view.workspace_name}`
        : 'Invitation';

  return (
    <main class="center-page">
      <form class="card auth-card" onSubmit={(event) => void onSubmit(event)} noValidate>
        <div class="auth-mark">
          <UsersIcon size={28} />
        </div>
        <h1>{title}</h1>
        {done ? (
          <>
            <FormMessage kind="info">
              {done.created_account
                ? `Your account is ready, with the role ${done.role}. Sign in with your email and the password you chose.`
                : `You are now ${done.role} in ${done.workspace_name}. Switch to it from the workspace menu.`}
            </FormMessage>
            <a
              class="button primary wide"
              href={done.created_account ? PATHS.signIn : PATHS.agents}
              onClick={() => void loadSession()}
            >
              {done.created_account ? 'Sign in' : 'Open the console'}
            </a>
          </>
        ) : isLinkBad ? (
          <FormMessage kind="error">
            This invite link is invalid, has expired, was revoked or was already used. Links work once, within
            7 days: ask whoever invited you for a new one.
          </FormMessage>
        ) : loadError ? (
          <FormMessage kind="error">{loadError}</FormMessage>
        ) : view === null ? (
          <p class="muted" aria-busy="true">
            Reading the invite…
          </p>
        ) : (
          <>
            <p>
              <strong>{view.email}</strong> is invited to join <strong>{view.workspace_name}</strong> as{' '}
              <strong>{view.role}</strong>.
            </p>
            {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
            {view.account_exists ? (
              isRightAccount ? (
                <button type="submit" class="button primary wide" disabled={isBusy}>
                  {isBusy ? 'Joining…' : 'Accept the invite'}
                </button>
              ) : (
                <>
                  <FormMessage kind="info">
                    {signedInAs
                      ? `You are signed in as ${signedInAs}. Sign out, then sign in as ${view.email} to accept.`
                      : `This email has an account: sign in as ${view.email}, and you come back here to accept.`}
                  </FormMessage>
                  {signedInAs ? null : (
                    <a class="button primary wide" href={signInPath(PATHS.acceptInvite)}>
                      Sign in
                    </a>
                  )}
                </>
              )
            ) : (
              <>
                <Field
                  name="name"
                  label="Your name"
                  value={name}
                  onInput={setName}
                  errors={errors}
                  autocomplete="name"
                  required
                  autofocus
                />
                <Field
                  name="password"
                  label="Choose a password"
                  type="password"
                  value={password}
                  onInput={setPassword}
                  errors={errors}
                  hint="At least 8 characters."
                  autocomplete="new-password"
                  required
                />
                <button type="submit" class="button primary wide" disabled={isBusy}>
                  {isBusy ? 'Creating…' : 'Create my account and join'}
                </button>
              </>
            )}
          </>
        )}
      </form>
    </main>
  );
}
