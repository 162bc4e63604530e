import { ZPasswordChange, ZProfileUpdate, ZUser } from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useState } from 'preact/hooks';
import { api, apiVoid } from '../api';
import { Field, FormMessage } from '../components/field';
import { useForm } from '../components/use-form';
import { PATHS } from '../paths';
import { loadSession, session } from '../session';
import './access.css';

/** The signed-in user's own account: name and email, password change, and a way to two-factor. */
export function Profile() {
  return (
    <section class="page" aria-labelledby="profile-title">
      <div class="page-head">
        <h1 id="profile-title">Profile</h1>
      </div>
      <ProfileForm />
      <PasswordForm />
      <div class="card">
        <h2>Two-factor sign-in</h2>
        <p class="muted">A code from an authenticator app, asked for after your password.</p>
        <div class="actions">
          <a class="button ghost" href={PATHS.twoFactor}>
            Manage two-factor
          </a>
        </div>
      </div>
    </section>
  );
}

function ProfileForm() {
  const user = session.value?.user;
  const [name, setName] = useState(user?.name ?? '');
  const [email, setEmail] = useState(user?.email ?? '');
  const { errors, notice, setNotice, isBusy, submit } = useForm();

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const saved = await submit({
      check: () => ZProfileUpdate.safeParse({ name: name.trim(), email: email.trim() }),
      send: async (input) => {
        await api('/me', ZUser, { method: 'PATCH', body: input });
        await loadSession();
      },
      fallback: 'Could not save the profile.',
    });
    if (saved) setNotice({ kind: 'info', text: 'Profile saved.' });
  };

  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate aria-labelledby="profile-form-title">
      <h2 id="profile-form-title">Name and email</h2>
      <Field name="name" label="Name" value={name} onInput={setName} errors={errors} autocomplete="name" />
      <Field
        name="email"
        label="Email"
        type="email"
        hint="You sign in with it, and mail about your account goes there."
        value={email}
        onInput={setEmail}
        errors={errors}
        autocomplete="email"
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={isBusy}>
          {isBusy ? 'Saving…' : 'Save profile'}
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const { errors, setErrors, notice, setNotice, isBusy, submit } = useForm();

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (next !== repeat) {
      setErrors({ repeat_password: ['The two new passwords differ.'] });
      return;
    }
    const changed = await submit({
      check: () => ZPasswordChange.safeParse({ current_password: current, new_password: next }),
      send: (input) => apiVoid('/me/password', { method: 'POST', body: input }),
      fallback: 'Could not change the password.',
    });
    if (changed) {
      setCurrent('');
      setNext('');
      setRepeat('');
      setNotice({
        kind: 'info',
        text: 'Password changed. Your other sessions were signed out, and a confirmation mail is on its way.',
      });
    }
  };

  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate aria-labelledby="password-form-title">
      <h2 id="password-form-title">Password</h2>
      <Field
        name="current_password"
        label="Current password"
        type="password"
        value={current}
        onInput={setCurrent}
        errors={errors}
        autocomplete="current-password"
      />
      <Field
        name="new_password"
        label="New password"
        type="password"
        hint="At least 8 characters."
        value={next}
        onInput={setNext}
        errors={errors}
        autocomplete="new-password"
      />
      <Field
        name="repeat_password"
        label="New password again"
        type="password"
        value={repeat}
        onInput={setRepeat}
        errors={errors}
        autocomplete="new-password"
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button primary" disabled={isBusy}>
          {isBusy ? 'Changing…' : 'Change password'}
        </button>
        <a class="button ghost" href={PATHS.forgotPassword}>
          Forgot your password?
        </a>
      </div>
    </form>
  );
}
