import { ZPasswordResetRequest, ZPasswordResetRequested } from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Field, FormMessage } from '../components/field';
import { LockIcon } from '../components/icons';
import { useForm } from '../components/use-form';
import { PATHS } from '../paths';

/**
 * "Forgot password?": asks for a reset mail. The service answers the same sentence whether or
 * not the address has an account, and the page shows that sentence.
 */
export function ForgotPassword() {
  const [email, setEmail] = useState('');
  const [sentMessage, setSentMessage] = useState<string | null>(null);
  const { errors, notice, isBusy, submit } = useForm();

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    await submit({
      check: () => ZPasswordResetRequest.safeParse({ email: email.trim() }),
      send: async (input) => {
        const answer = await api('/password-reset', ZPasswordResetRequested, {
          method: 'POST',
          body: input,
          isSessionCall: true,
        });
        setSentMessage(answer.message);
      },
      fallback: 'Could not ask for the mail.',
    });
  };

  return (
    <main class="center-page">
      <form class="card auth-card" onSubmit={onSubmit} noValidate>
        <div class="auth-mark">
          <LockIcon size={28} />
        </div>
        <h1>Reset your password</h1>
        {sentMessage ? (
          <>
            <FormMessage kind="info">{sentMessage}</FormMessage>
            <p class="muted">Did not get it? Check the spam folder, or ask again in a few minutes.</p>
            <a class="button primary wide" href={PATHS.signIn}>
              Back to sign-in
            </a>
          </>
        ) : (
          <>
            <p class="muted">
              Enter the email you sign in with. We will mail you a link to choose a new password.
            </p>
            {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
            <Field
              name="email"
              label="Email"
              type="email"
              value={email}
              onInput={setEmail}
              errors={errors}
              autocomplete="username"
              required
              autofocus
            />
            <button type="submit" class="button primary wide" disabled={isBusy}>
              {isBusy ? 'Sending…' : 'Mail me a reset link'}
            </button>
            <a class="button ghost wide" href={PATHS.signIn}>
              Back to sign-in
            </a>
          </>
        )}
      </form>
    </main>
  );
}
