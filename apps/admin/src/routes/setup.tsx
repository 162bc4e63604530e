import { type TSetupRequest, ZAdminSession, ZSetupRequest } from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Field, FormMessage } from '../components/field';
import { ChatIcon } from '../components/icons';
import { useForm } from '../components/use-form';
import { adoptSession, loadSession } from '../session';

type Form = Record<keyof TSetupRequest, string>;

/** First run: the setup code from the service's log, then the first user and workspace. */
export function Setup() {
  const [form, setForm] = useState<Form>({ setup_code: '', email: '', password: '', workspace_name: '' });
  const { errors, setErrors, notice, isBusy, submit } = useForm();
  const set = (key: keyof Form) => (value: string) => setForm({ ...form, [key]: value });

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    let isTaken = false;
    await submit({
      check: () => ZSetupRequest.safeParse(form),
      send: async (body) =>
        adoptSession(await api('/setup', ZAdminSession, { method: 'POST', body, isSessionCall: true })),
      onApiError: (error) => {
        // Someone finished setup meanwhile: the console moves on to sign-in.
        if (error.status === 409) isTaken = true;
        else if (error.status === 403) setErrors({ setup_code: [error.message] });
        else return false;
        return true;
      },
      fallback: 'The account could not be created.',
    });
    if (isTaken) await loadSession();
  };

  return (
    <main class="center-page">
      <form class="card auth-card" onSubmit={onSubmit} noValidate>
        <div class="auth-mark">
          <ChatIcon size={28} />
        </div>
        <h1>Set up the service</h1>
        <p class="muted">
          Create the first account and its workspace. The setup code is in the service’s log (and in the file{' '}
          <code>setup-code</code> in its data folder), so only whoever runs the service can do this.
        </p>
        {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
        <Field
          name="setup_code"
          label="Setup code"
          value={form.setup_code}
          onInput={set('setup_code')}
          errors={errors}
          autocomplete="off"
          hint="Looks like ABCD-EFGH-JKLM-NPQR."
          required
          autofocus
        />
        <Field
          name="email"
          label="Your email"
          type="email"
          value={form.email}
          onInput={set('email')}
          errors={errors}
          autocomplete="email"
          required
        />
        <Field
          name="password"
          label="Password"
          type="password"
          value={form.password}
          onInput={set('password')}
          errors={errors}
          autocomplete="new-password"
          hint="At least 8 characters."
          required
        />
        <Field
          name="workspace_name"
          label="Workspace name"
          value={form.workspace_name}
          onInput={set('workspace_name')}
          errors={errors}
          autocomplete="organization"
          hint="Your business or site, e.g. “Acme Coffee”."
          required
        />
        <button type="submit" class="button primary wide" disabled={isBusy}>
          {isBusy ? 'Creating…' : 'Create account'}
        </button>
      </form>
    </main>
  );
}
