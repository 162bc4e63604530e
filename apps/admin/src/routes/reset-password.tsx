import { ZPasswordResetConfirm } from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useState } from 'preact/hooks';
import { apiVoid } from '../api';
import { Field, FormMessage } from '../components/field';
import { LockIcon } from '../components/icons';
import { badLinkHandler, useForm } from '../components/use-form';
import { PATHS } from '../paths';
import { session } from '../session';

/** Reads the token from the link's fragment (`#token=…`) once, and takes it out of the address bar. */
function takeTokenFromLink(): string {
  const hash = typeof location === 'undefined' ? '' : location.hash;
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
  if (hash && typeof history !== 'undefined') {
    // Out of the address bar and the history, so it is not shared or shoulder-read by accident.
    history.replaceState(history.state, '', location.pathname);
  }
  return token;
}

/**
 * The page a reset mail links to: choose a new password (twice). On success every session of
 * the account has ended, this browser's too, so the page leads to sign-in.
 */
export function ResetPassword() {
  const [token] = useState(takeTokenFromLink);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [isDone, setDone] = useState(false);
  const [isLinkBad, setLinkBad] = useState(token === '');
  const { errors, setErrors, notice, isBusy, submit } = useForm();

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (password !== repeat) {
      setErrors({ repeat: ['The two passwords differ.'] });
      return;
    }
    await submit({
      check: () => ZPasswordResetConfirm.safeParse({ token, password }),
      send: async (input) => {
        await apiVoid('/password-reset/confirm', { method: 'POST', body: input, isSessionCall: true });
        // The service ended every session of the account, this one included.
        session.value = null;
        setDone(true);
      },
      onApiError: badLinkHandler(setLinkBad),
      fallback: 'Could not change the password.',
    });
  };

  return (
    <main class="center-page">
      <form class="card auth-card" onSubmit={onSubmit} noValidate>
        <div class="auth-mark">
          <LockIcon size={28} />
        </div>
        <h1>
          {isDone ? 'Password changed' : isLinkBad ? 'This link does not work' : 'Choose a new password'}
        </h1>
        {isDone ? (
          <>
            <FormMessage kind="info">
              Your password is changed, and every session of your account has been signed out. Sign in with
              the new password.
            </FormMessage>
            <a class="button primary wide" href={PATHS.signIn}>
              Sign in
            </a>
          </>
        ) : isLinkBad ? (
          <>
            <FormMessage kind="error">
              This reset link is invalid, has expired or was already used. Links work once, within 60 minutes.
            </FormMessage>
            <a class="button primary wide" href={PATHS.forgotPassword}>
              Ask for a new link
            </a>
          </>
        ) : (
          <>
            {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
            <Field
              name="password"
              label="New password"
              type="password"
              value={password}
              onInput={setPassword}
              errors={errors}
              hint="At least 8 characters."
              autocomplete="new-password"
              required
              autofocus
            />
            <Field
              name="repeat"
              label="New password again"
              type="password"
              value={repeat}
              onInput={setRepeat}
              errors={errors}
              autocomplete="new-password"
              required
            />
            <button type="submit" class="button primary wide" disabled={isBusy}>
              {isBusy ? 'Saving…' : 'Set the new password'}
            </button>
          </>
        )}
      </form>
    </main>
  );
}
