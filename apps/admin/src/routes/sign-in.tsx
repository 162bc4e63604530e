import { ZSessionLogin } from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { waitMessage } from '../api';
import { Field, FormMessage } from '../components/field';
import { LockIcon } from '../components/icons';
import { useForm } from '../components/use-form';
import { PATHS } from '../paths';
import { sessionEnded, signIn } from '../session';

type Step = 'password' | 'code' | 'recovery';

/**
 * Sign-in: email and password; then, when two-factor is on (the service answers 422 naming
 * `code`), the authenticator code or a recovery code. A 429 is shown as a wait that counts down.
 */
export function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [step, setStep] = useState<Step>('password');
  const { errors, notice, showError, isBusy, submit, clear } = useForm();
  const [waitSeconds, setWaitSeconds] = useState(0);

  useEffect(() => {
    if (waitSeconds <= 0) return;
    const timer = setTimeout(() => setWaitSeconds(waitSeconds - 1), 1000);
    return () => clearTimeout(timer);
  }, [waitSeconds]);

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = {
      email,
      password,
      ...(step === 'code' ? { code: code.replace(/\s/g, '') } : {}),
      ...(step === 'recovery' ? { recovery_code: code } : {}),
    };
    await submit({
      check: () => ZSessionLogin.safeParse(input),
      send: signIn,
      onApiError: (error) => {
        if (error.status === 422 && step === 'password' && error.errors.code) setStep('code');
        else if (error.status === 429) setWaitSeconds(error.retryAfter ?? 60);
        else if (error.status === 401) {
          showError(
            step === 'password'
              ? 'The email or password is not right.'
              : 'That code is not right, or it was already used.',
          );
        } else return false;
        return true;
      },
      errorsFor: renameCodeErrors,
      fallback: 'Could not sign in.',
    });
  };

  const isWaiting = waitSeconds > 0;
  return (
    <main class="center-page">
      <form class="card auth-card" onSubmit={onSubmit} noValidate>
        <div class="auth-mark">
          <LockIcon size={28} />
        </div>
        <h1>{step === 'password' ? 'Sign in' : 'Two-factor sign-in'}</h1>
        {sessionEnded.value && step === 'password' ? (
          <FormMessage kind="info">Your session ended. Sign in again to go on where you were.</FormMessage>
        ) : null}
        {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
        {isWaiting ? <FormMessage kind="info">{waitMessage(waitSeconds)}</FormMessage> : null}
        {step === 'password' ? (
          <>
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
            <Field
              name="password"
              label="Password"
              type="password"
              value={password}
              onInput={setPassword}
              errors={errors}
              autocomplete="current-password"
              required
            />
          </>
        ) : (
          <>
            <p class="muted">
              {step === 'code'
                ? 'Enter the six-digit code from your authenticator app.'
                : 'Enter one of the recovery codes you saved when you turned two-factor on. Each works once.'}
            </p>
            <Field
              key={step}
              name="second_factor"
              label={step === 'code' ? 'Authenticator code' : 'Recovery code'}
              value={code}
              onInput={setCode}
              errors={errors}
              autocomplete="one-time-code"
              inputMode={step === 'code' ? 'numeric' : 'text'}
              required
              autofocus
            />
            <button
              type="button"
              class="button link"
              onClick={() => {
                setCode('');
                clear();
                setStep(step === 'code' ? 'recovery' : 'code');
              }}
            >
              {step === 'code' ? 'Use a recovery code instead' : 'Use the authenticator code instead'}
            </button>
          </>
        )}
        <button type="submit" class="button primary wide" disabled={isBusy || isWaiting}>
          {isBusy ? 'Signing in…' : step === 'password' ? 'Sign in' : 'Verify'}
        </button>
        {step === 'password' ? (
          <a class="button link" href={PATHS.forgotPassword}>
            Forgot password?
          </a>
        ) : (
          <button
            type="button"
            class="button ghost wide"
            onClick={() => {
              setStep('password');
              setCode('');
              clear();
            }}
          >
            Back
          </button>
        )}
      </form>
    </main>
  );
}

/** The code and recovery code share one input on screen. */
function renameCodeErrors(errors: Record<string, string[]>): Record<string, string[]> {
  const { code, recovery_code, ...rest } = errors;
  const second = [...(code ?? []), ...(recovery_code ?? [])];
  return second.length > 0 ? { ...rest, second_factor: second } : rest;
}
