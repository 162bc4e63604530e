import {
  type TTwoFactorSetup,
  type TTwoFactorStatus,
  ZRecoveryCodes,
  ZTwoFactorConfirm,
  ZTwoFactorDisable,
  ZTwoFactorSetup,
  ZTwoFactorStatus,
} from '@service/contract';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { encode } from 'uqr';
import { ApiError, api, apiVoid } from '../api';
import { CopySecret } from '../components/copy-secret';
import { Field, FormActions, FormMessage } from '../components/field';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { useForm } from '../components/use-form';
import { dateText } from '../date-text';
import './access.css';

type Step =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'status'; status: TTwoFactorStatus }
  | { kind: 'scan'; setup: TTwoFactorSetup }
  | { kind: 'codes'; codes: string[] };

/** The signed-in user's two-factor sign-in: turn it on (QR, confirm, recovery codes) or off. */
export function TwoFactor() {
  const [step, setStep] = useState<Step>({ kind: 'loading' });
  const [message, setMessage] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);

  const load = async () => {
    try {
      setStep({ kind: 'status', status: await api('/me/two-factor', ZTwoFactorStatus) });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setStep({
        kind: 'error',
        message: error instanceof Error ? error.message : 'Could not read the settings.',
      });
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const onStart = async () => {
    setBusy(true);
    setMessage(null);
    try {
      setStep({ kind: 'scan', setup: await api('/me/two-factor', ZTwoFactorSetup, { method: 'POST' }) });
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not start the setup.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="page" aria-labelledby="two-factor-title">
      <div class="page-head">
        <h1 id="two-factor-title">Two-factor sign-in</h1>
      </div>
      <p class="muted">
        With two-factor on, signing in takes your password and a six-digit code from an authenticator app on
        your phone, so a stolen password alone is not enough.
      </p>
      {step.kind === 'loading' ? (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      ) : null}
      {step.kind === 'error' ? <FormMessage kind="error">{step.message}</FormMessage> : null}
      {step.kind === 'status' && !step.status.enabled ? (
        <div class="card form-card">
          <h2>Two-factor is off</h2>
          <p>
            Turn it on in three steps: scan a code with your app, type the code it shows, keep your recovery
            codes.
          </p>
          {message ? <FormMessage kind="error">{message}</FormMessage> : null}
          <div class="actions">
            <button type="button" class="button primary" disabled={isBusy} onClick={() => void onStart()}>
              {isBusy ? 'Starting…' : 'Turn on two-factor'}
            </button>
          </div>
        </div>
      ) : null}
      {step.kind === 'status' && step.status.enabled ? (
        <Disable status={step.status} onDisabled={() => void load()} />
      ) : null}
      {step.kind === 'scan' ? (
        <Scan
          setup={step.setup}
          onConfirmed={(codes) => setStep({ kind: 'codes', codes })}
          onCancel={() => void load()}
        />
      ) : null}
      {step.kind === 'codes' ? <RecoveryCodes codes={step.codes} onDone={() => void load()} /> : null}
    </section>
  );
}

/** The otpauth:// address as a QR code: an inline SVG path, one unit square per dark module. */
function QrCode(props: { text: string }) {
  const { size, path } = useMemo(() => {
    const { data } = encode(props.text, { ecc: 'M', border: 2 });
    let d = '';
    data.forEach((row, y) => {
      row.forEach((isDark, x) => {
        if (isDark) d += `M${x} ${y}h1v1h-1z`;
      });
    });
    return { size: data.length, path: d };
  }, [props.text]);
  return (
    <div class="qr-code">
      <svg
        viewBox={`0 0 ${size} ${size}`}
        role="img"
        aria-label="QR code to scan with your authenticator app"
        shape-rendering="crispEdges"
      >
        <rect width={size} height={size} fill="#ffffff" />
        <path d={path} fill="#000000" />
      </svg>
    </div>
  );
}

function Scan(props: {
  setup: TTwoFactorSetup;
  onConfirmed: (codes: string[]) => void;
  onCancel: () => void;
}) {
  const [code, setCode] = useState('');
  const { errors, notice, isBusy, submit } = useForm();
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    await submit({
      check: () => ZTwoFactorConfirm.safeParse({ code: code.replace(/\s/g, '') }),
      send: async (body) => {
        const answer = await api('/me/two-factor/confirm', ZRecoveryCodes, { method: 'POST', body });
        props.onConfirmed(answer.recovery_codes);
      },
      fallback: 'Could not turn two-factor on.',
    });
  };

  return (
    <form class="card form-card" onSubmit={(event) => void onSubmit(event)} noValidate>
      <h2 ref={heading} tabIndex={-1}>
        Scan this code with your authenticator app
      </h2>
      <div class="qr-setup">
        <QrCode text={props.setup.otpauth_url} />
        <div class="qr-text">
          <p>
            Open an authenticator app (such as Aegis, Google Authenticator or 1Password), add an account and
            scan the code. Cannot scan? Type this key instead:
          </p>
          <p class="secret-value">
            <code id="two-factor-secret">{props.setup.secret}</code>
          </p>
        </div>
      </div>
      <Field
        name="code"
        label="Code from the app"
        hint="Six digits; a new one every 30 seconds."
        value={code}
        onInput={setCode}
        errors={errors}
        inputMode="numeric"
        autocomplete="one-time-code"
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <FormActions label="Turn on" busyLabel="Checking…" isBusy={isBusy} onCancel={props.onCancel} />
    </form>
  );
}

function RecoveryCodes(props: { codes: string[]; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  const text = props.codes.join('\n');
  const onDownload = () => {
    const blob = new Blob(
      [`Recovery codes (each works once, in place of an authenticator code):\n\n${text}\n`],
      { type: 'text/plain;charset=utf-8' },
    );
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = 'recovery-codes.txt';
    link.click();
    // The click has started the download; the address is not needed after this turn.
    setTimeout(() => URL.revokeObjectURL(link.href), 0);
  };
  return (
    <div class="card once-card">
      <h2 ref={heading} tabIndex={-1}>
        Two-factor is on: keep your recovery codes
      </h2>
      <FormMessage kind="info">
        Each code signs you in once without your phone. Save them now, somewhere other than your phone: you
        will not see them again.
      </FormMessage>
      <CopySecret value={text} label="Copy codes" multiline>
        <button type="button" class="button ghost" onClick={onDownload}>
          Download as .txt
        </button>
      </CopySecret>
      <div class="actions">
        <button type="button" class="button ghost" onClick={props.onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

function Disable(props: { status: TTwoFactorStatus; onDisabled: () => void }) {
  const [code, setCode] = useState('');
  const { errors, setErrors, notice, isBusy, submit } = useForm();
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    const value = code.trim();
    // Six digits is an app code; anything longer is a recovery code.
    const body = /^\d{6}$/.test(value.replace(/\s/g, ''))
      ? { code: value.replace(/\s/g, '') }
      : { recovery_code: value };
    const parsed = ZTwoFactorDisable.safeParse(body);
    if (!parsed.success) {
      setErrors({ code: ['Enter the code your app shows, or one of your recovery codes.'] });
      return;
    }
    await submit({
      check: () => parsed,
      send: async (checked) => {
        await apiVoid('/me/two-factor', { method: 'DELETE', body: checked });
        props.onDisabled();
      },
      // One input takes either code: the service's recovery_code errors belong to it.
      errorsFor: ({ recovery_code, ...rest }) =>
        recovery_code ? { ...rest, code: [...(rest.code ?? []), ...recovery_code] } : rest,
      fallback: 'Could not turn two-factor off.',
    });
  };
  const left = props.status.recovery_codes_left;
  return (
    <form class="card form-card" onSubmit={(event) => void onSubmit(event)} noValidate>
      <h2>Two-factor is on</h2>
      <p>
        On since {dateText(props.status.enabled_at)}. {left} recovery code{left === 1 ? '' : 's'} left.
      </p>
      <Field
        name="code"
        label="Code to turn it off"
        hint="The code your app shows now, or one of your recovery codes."
        value={code}
        onInput={setCode}
        errors={errors}
        autocomplete="one-time-code"
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <div class="actions">
        <button type="submit" class="button ghost" disabled={isBusy}>
          {isBusy ? 'Turning off…' : 'Turn off two-factor'}
        </button>
      </div>
    </form>
  );
}
