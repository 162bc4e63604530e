import {
  LLM_KEY_PROVIDERS,
  type TLlmKey,
  type TLlmKeyProvider,
  ZLlmKey,
  ZLlmKeyPut,
} from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, apiVoid } from '../api';
import { Field, FormActions, FormMessage } from '../components/field';
import { useForm } from '../components/use-form';
import { dateText } from '../date-text';
import { session } from '../session';
import { SelectField } from './select-field';
import './access.css';

const PROVIDER_NAMES: Record<TLlmKeyProvider, string> = { openai: 'OpenAI', anthropic: 'Anthropic' };

/**
 * The workspace's own model key (BYOK): provider, model and the key's last four characters
 * (never the key), set, replace, remove. A user without BYOK is told why they cannot set one.
 */
export function ModelKey() {
  const [key, setKey] = useState<TLlmKey | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [isEditing, setEditing] = useState(false);
  const isAllowed = session.value?.user.byok_enabled === true;

  useEffect(() => {
    api('/llm-key', ZLlmKey)
      .then(setKey)
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) setKey(null);
        else setLoadError(error instanceof Error ? error.message : 'Could not load the model key.');
      });
  }, []);

  return (
    <section class="page" aria-labelledby="model-key-title">
      <div class="page-head">
        <h1 id="model-key-title">Model key</h1>
      </div>
      <p class="muted">
        Answers use the service’s model unless the workspace brings its own key. The key is stored encrypted
        and never shown again: only its last four characters.
      </p>
      {isAllowed ? null : (
        <FormMessage kind="info">
          Your account may not set a model key: the service’s operator turns this on per user (bring your own
          key). Ask them if the workspace should use its own.
        </FormMessage>
      )}
      {loadError ? <FormMessage kind="error">{loadError}</FormMessage> : null}
      {key === undefined && loadError === null ? (
        <p class="muted" aria-busy="true">
          Loading…
        </p>
      ) : null}
      {key ? <CurrentKey modelKey={key} isAllowed={isAllowed} onRemoved={() => setKey(null)} /> : null}
      {key === null && !isEditing ? (
        <div class="card empty-state">
          <h2>No model key</h2>
          <p class="muted">Answers use the service’s model.</p>
        </div>
      ) : null}
      {key !== undefined && isEditing ? (
        <KeyForm
          isReplacing={key !== null}
          onSaved={(saved) => {
            setKey(saved);
            setEditing(false);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      {key !== undefined && !isEditing ? (
        <div class="actions">
          <button type="button" class="button primary" disabled={!isAllowed} onClick={() => setEditing(true)}>
            {key ? 'Replace the key' : 'Set a key'}
          </button>
        </div>
      ) : null}
    </section>
  );
}

function CurrentKey(props: { modelKey: TLlmKey; isAllowed: boolean; onRemoved: () => void }) {
  const { modelKey } = props;
  const [isConfirming, setConfirming] = useState(false);
  const [isBusy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const onRemove = async () => {
    setBusy(true);
    setMessage(null);
    try {
      await apiVoid('/llm-key', { method: 'DELETE' });
      props.onRemoved();
    } catch (error) {
      setMessage(error instanceof Error ? error.message : 'Could not remove the key.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="row-card">
      <div class="row-title">
        <h2>{PROVIDER_NAMES[modelKey.provider]} key</h2>
        <span class={`badge ${modelKey.active ? 'ok' : 'draft'}`}>
          {modelKey.active ? 'In use' : 'Not in use'}
        </span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Key</dt>
          <dd>
            <code>
              {modelKey.key_last4 ? `••••${modelKey.key_last4}` : 'Enter it again (the service key changed)'}
            </code>
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd>{modelKey.model ?? 'The provider’s default'}</dd>
        </div>
        <div>
          <dt>Saved</dt>
          <dd>{dateText(modelKey.updated_at)}</dd>
        </div>
      </dl>
      {modelKey.active ? null : (
        <p class="muted">
          Answers use the service’s model: no owner of this workspace may bring their own key now.
        </p>
      )}
      {isConfirming ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Remove the model key</legend>
          <p>Remove the key? Answers use the service’s model from the next question.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onRemove()}>
              {isBusy ? 'Removing…' : 'Yes, remove it'}
            </button>
            <button type="button" class="button ghost" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        </fieldset>
      ) : (
        <div class="actions">
          <button type="button" class="button ghost" onClick={() => setConfirming(true)}>
            Remove…
          </button>
        </div>
      )}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
    </div>
  );
}

function KeyForm(props: { isReplacing: boolean; onSaved: (key: TLlmKey) => void; onCancel: () => void }) {
  const [provider, setProvider] = useState<TLlmKeyProvider>('openai');
  const [apiKey, setApiKey] = useState('');
  const [model, setModel] = useState('');
  const { errors, notice, isBusy, submit } = useForm();
  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    await submit({
      check: () => ZLlmKeyPut.safeParse({ provider, api_key: apiKey.trim(), model: model.trim() || null }),
      send: async (input) => props.onSaved(await api('/llm-key', ZLlmKey, { method: 'PUT', body: input })),
      fallback: 'Could not save the key.',
    });
  };
  return (
    <form class="card form-card" onSubmit={onSubmit} noValidate aria-labelledby="key-form-title">
      <h2 id="key-form-title">{props.isReplacing ? 'Replace the model key' : 'Set a model key'}</h2>
      <SelectField
        name="provider"
        label="Provider"
        value={provider}
        options={LLM_KEY_PROVIDERS.map((value) => ({ value, label: PROVIDER_NAMES[value] }))}
        onChange={(value) => setProvider(value === 'anthropic' ? 'anthropic' : 'openai')}
        errors={errors}
      />
      <Field
        name="api_key"
        label="API key"
        type="password"
        value={apiKey}
        onInput={setApiKey}
        errors={errors}
        autocomplete="off"
      />
      <Field
        name="model"
        label="Model (optional)"
        hint="Empty: the provider’s default."
        value={model}
        onInput={setModel}
        errors={errors}
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <FormActions label="Save the key" busyLabel="Saving…" isBusy={isBusy} onCancel={props.onCancel} />
    </form>
  );
}
