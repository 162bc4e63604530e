import {
  ABILITIES,
  type TAbility,
  type TApiToken,
  type TApiTokenCreated,
  ZApiToken,
  ZApiTokenCreate,
  ZApiTokenCreated,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, fieldErrorsOf } from '../api';
import { CopySecret } from '../components/copy-secret';
import { Field, FormActions, FormMessage } from '../components/field';
import { AlertIcon, PlusIcon } from '../components/icons';
import { LoadMore } from '../components/load-more';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { dateText } from '../date-text';
import { usePagedList } from '../paged-list';
import './access.css';

/** What each ability lets a token do, in the words of the checkbox beside it. */
const ABILITY_TEXT: Record<TAbility, { title: string; hint: string }> = {
  admin: { title: 'Admin API', hint: 'Everything this console does: agents, knowledge, tokens.' },
  'wp:integration': {
    title: 'Site integration',
    hint: 'For the site plugin (WordPress or the SDK): sync and the plugin’s own routes.',
  },
};

/** The workspace's API tokens: list, create with abilities (shown once), revoke. */
export function Tokens() {
  const list = usePagedList('/tokens?order=desc', ZApiToken, 'Could not load the tokens.');
  const [created, setCreated] = useState<TApiTokenCreated | null>(null);
  const [isCreating, setCreating] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);

  const load = list.reload;
  useEffect(() => {
    void load();
  }, [load]);
  const tokens = list.items;

  const onCreated = (token: TApiTokenCreated) => {
    setCreated(token);
    setCreating(false);
    void load();
  };

  return (
    <section class="page" aria-labelledby="tokens-title">
      <div class="page-head">
        <h1 id="tokens-title" ref={title} tabIndex={-1}>
          API tokens
        </h1>
        {isCreating ? null : (
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            <PlusIcon size={18} />
            <span>New token</span>
          </button>
        )}
      </div>
      <p class="muted">
        A token lets a script or your site’s plugin call the service as this workspace. Give each use its own
        token, so you can revoke one without stopping the others.
      </p>
      {created ? (
        <CreatedToken
          token={created}
          onDone={() => {
            setCreated(null);
            // The card with the focus is gone: keyboard users go on from the page's title.
            title.current?.focus();
          }}
        />
      ) : null}
      {isCreating ? <CreateToken onCreated={onCreated} onCancel={() => setCreating(false)} /> : null}
      {tokens === null && list.error === null ? (
        <p class="muted" aria-busy="true">
          Loading tokens…
        </p>
      ) : null}
      {list.error ? <FormMessage kind="error">{list.error}</FormMessage> : null}
      {tokens?.length === 0 && !isCreating ? (
        <div class="card empty-state">
          <h2>No tokens yet</h2>
          <p class="muted">
            Create one when a script or your site’s plugin needs to reach the service. You see its value once,
            right after creating it.
          </p>
        </div>
      ) : null}
      {tokens && tokens.length > 0 ? (
        <ul class="row-list" aria-label="Tokens">
          {tokens.map((token) => (
            <TokenRow key={token.id} token={token} onRevoked={list.replace} />
          ))}
        </ul>
      ) : null}
      <LoadMore list={list} noun="tokens" />
    </section>
  );
}

function CreateToken(props: { onCreated: (token: TApiTokenCreated) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [abilities, setAbilities] = useState<TAbility[]>(['admin']);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [isBusy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);

  const toggle = (ability: TAbility, on: boolean) => {
    setAbilities((current) => (on ? [...current, ability] : current.filter((a) => a !== ability)));
    if (errors.abilities) setErrors(({ abilities: _, ...rest }) => rest);
  };
  const onName = (value: string) => {
    setName(value);
    if (errors.name) setErrors(({ name: _, ...rest }) => rest);
  };

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setMessage(null);
    const parsed = ZApiTokenCreate.safeParse({ name, abilities });
    if (!parsed.success) {
      const found = fieldErrorsOf(parsed.error);
      if (found.abilities) found.abilities = ['Choose at least one ability.'];
      if (found.name) found.name = ['Name the token (what will use it).'];
      setErrors(found);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      props.onCreated(await api('/tokens', ZApiTokenCreated, { method: 'POST', body: parsed.data }));
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(error.errors);
        if (Object.keys(error.errors).length === 0) setMessage(error.message);
      } else setMessage('Could not create the token.');
    } finally {
      setBusy(false);
    }
  };

  const abilityErrors = errors.abilities ?? [];
  return (
    <form class="card form-card" onSubmit={(event) => void onSubmit(event)} noValidate>
      <h2 ref={heading} tabIndex={-1}>
        New token
      </h2>
      <Field
        name="name"
        label="Name"
        hint="What will use it, such as “WordPress shop” or “nightly export”."
        value={name}
        onInput={onName}
        errors={errors}
      />
      <fieldset class="choices" aria-describedby={abilityErrors.length > 0 ? 'abilities-error' : undefined}>
        <legend>Abilities</legend>
        {ABILITIES.map((ability) => (
          <label key={ability} class="choice">
            <input
              type="checkbox"
              name="abilities"
              value={ability}
              checked={abilities.includes(ability)}
              onChange={(event) => toggle(ability, event.currentTarget.checked)}
            />
            <span>
              <strong>{ABILITY_TEXT[ability].title}</strong> <code>{ability}</code>
              <span class="hint">{ABILITY_TEXT[ability].hint}</span>
            </span>
          </label>
        ))}
        {abilityErrors.length > 0 ? (
          <p class="field-error" id="abilities-error">
            <AlertIcon size={16} />
            <span>{abilityErrors.join(' ')}</span>
          </p>
        ) : null}
      </fieldset>
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
      <FormActions label="Create token" busyLabel="Creating…" isBusy={isBusy} onCancel={props.onCancel} />
    </form>
  );
}

function CreatedToken(props: { token: TApiTokenCreated; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  return (
    <div class="card once-card">
      <h2 ref={heading} tabIndex={-1}>
        Token “{props.token.name}” created
      </h2>
      <FormMessage kind="info">
        Copy it now and keep it somewhere safe: you will not see it again. If you lose it, revoke it and
        create another.
      </FormMessage>
      <CopySecret value={props.token.token} label="Copy token" />
      <div class="actions">
        <button type="button" class="button ghost" onClick={props.onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}

function TokenRow(props: { token: TApiToken; onRevoked: (token: TApiToken) => void }) {
  const { token } = props;
  const [isConfirming, setConfirming] = useState(false);
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const onRevoke = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const revoked = await api(`/tokens/${encodeURIComponent(token.id)}`, ZApiToken, { method: 'DELETE' });
      setConfirming(false);
      // The revoke buttons are gone: the focus stays on this token (now shown as revoked).
      heading.current?.focus();
      props.onRevoked(revoked);
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not revoke the token.');
    } finally {
      setBusy(false);
    }
  };
  const isRevoked = token.revoked_at !== null;
  return (
    <li class={`row-card${isRevoked ? ' is-revoked' : ''}`}>
      <div class="row-title">
        <h2 ref={heading} tabIndex={-1}>
          {token.name}
        </h2>
        <span class={`badge ${isRevoked ? 'draft' : 'ok'}`}>{isRevoked ? 'Revoked' : 'Active'}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Starts with</dt>
          <dd>
            <code>{token.token_prefix}…</code>
          </dd>
        </div>
        <div>
          <dt>Abilities</dt>
          <dd>{token.abilities.join(', ')}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{dateText(token.created_at)}</dd>
        </div>
        <div>
          <dt>{isRevoked ? 'Revoked' : 'Last used'}</dt>
          <dd>{isRevoked ? dateText(token.revoked_at) : dateText(token.last_used_at, 'Never')}</dd>
        </div>
      </dl>
      {isRevoked ? null : isConfirming ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Revoke {token.name}</legend>
          <p>Revoke “{token.name}”? Whatever uses it stops working at once. This cannot be undone.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onRevoke()}>
              {isBusy ? 'Revoking…' : 'Yes, revoke it'}
            </button>
            <button type="button" class="button ghost" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        </fieldset>
      ) : (
        <div class="actions">
          <button type="button" class="button ghost" onClick={() => setConfirming(true)}>
            Revoke…
          </button>
        </div>
      )}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </li>
  );
}
