import {
  type TWebhook,
  type TWebhookCreated,
  type TWebhookFormat,
  WEBHOOK_EVENTS,
  WEBHOOKS_PER_WORKSPACE_MAX,
  ZWebhook,
  ZWebhookCreate,
  ZWebhookCreated,
} from '@service/contract';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api, apiVoid } from '../api';
import { CopySecret } from '../components/copy-secret';
import { Field, FormActions, FormMessage } from '../components/field';
import { AlertIcon, PlusIcon } from '../components/icons';
import { useFocusOnShow } from '../components/use-focus-on-show';
import { type FieldErrors, useForm } from '../components/use-form';
import { dateText } from '../date-text';
import { can, session } from '../session';
import { SelectField } from './select-field';
import { DeliveryLog } from './webhook-deliveries';
import './access.css';
import './webhooks.css';

/** What an event means, beside its checkbox; an event the contract adds later shows its name only. */
const EVENT_HINTS: Partial<Record<string, string>> = {
  'lead.captured': 'A visitor left their contact details.',
  'agent.quality_regressed': 'An evaluation run scored lower than the one before.',
  'conversation.handoff_requested': 'A visitor asked for a human.',
};

/** How each delivery format reads in the form and the list. */
const FORMAT_LABELS: Record<TWebhookFormat, string> = {
  json: 'JSON (signed event)',
  slack: 'Slack incoming webhook',
};

/** The service names a bad event by its index (`events.0`): shown under the event list. */
function eventErrorsTogether(errors: FieldErrors): FieldErrors {
  const together: FieldErrors = {};
  for (const [key, messages] of Object.entries(errors)) {
    const field = key.startsWith('events') ? 'events' : key;
    together[field] = [...(together[field] ?? []), ...messages];
  }
  return together;
}

/** The workspace's outgoing webhooks: list, create (the secret shown once), on/off, delete, deliveries. */
export function Webhooks() {
  const isAllowed = can('workspace.configure');
  const [hooks, setHooks] = useState<TWebhook[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<TWebhookCreated | null>(null);
  const [isCreating, setCreating] = useState(false);
  const title = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      setHooks(await api('/webhooks', z.array(ZWebhook)));
      setError(null);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) return;
      setError(caught instanceof Error ? caught.message : 'Could not load the webhooks.');
    }
  }, []);
  useEffect(() => {
    if (isAllowed) void load();
  }, [load, isAllowed]);

  const isFull = (hooks?.length ?? 0) >= WEBHOOKS_PER_WORKSPACE_MAX;
  const replace = (next: TWebhook) =>
    setHooks((current) => current?.map((h) => (h.id === next.id ? next : h)) ?? null);
  const remove = (id: string) => {
    setHooks((current) => current?.filter((h) => h.id !== id) ?? null);
    title.current?.focus();
  };

  return (
    <section class="page" aria-labelledby="webhooks-title">
      <div class="page-head">
        <h1 id="webhooks-title" ref={title} tabIndex={-1}>
          Webhooks
        </h1>
        {isAllowed && hooks && !isCreating && !isFull ? (
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            <PlusIcon size={18} />
            <span>New webhook</span>
          </button>
        ) : null}
      </div>
      <p class="muted">
        A webhook sends a signed JSON request to your URL when something happens in this workspace (see the
        signature check in the documentation). Failed sends are retried; every delivery is logged below.
      </p>
      {isAllowed ? null : (
        <FormMessage kind="error">
          {`Your role (${session.value?.role ?? 'viewer'}) can't do this. An owner or admin of this workspace manages its webhooks.`}
        </FormMessage>
      )}
      {isFull ? (
        <FormMessage kind="info">{`A workspace may have ${WEBHOOKS_PER_WORKSPACE_MAX} webhooks: delete one to add another.`}</FormMessage>
      ) : null}
      {created ? (
        <CreatedWebhook
          webhook={created}
          onDone={() => {
            setCreated(null);
            title.current?.focus();
          }}
        />
      ) : null}
      {isCreating ? (
        <CreateWebhook
          onCreated={(webhook) => {
            setCreated(webhook);
            setCreating(false);
            void load();
          }}
          onCancel={() => setCreating(false)}
        />
      ) : null}
      {error ? <FormMessage kind="error">{error}</FormMessage> : null}
      {isAllowed && hooks === null && error === null ? (
        <p class="muted" aria-busy="true">
          Loading webhooks…
        </p>
      ) : null}
      {hooks?.length === 0 && !isCreating ? (
        <div class="card empty-state">
          <h2>No webhooks yet</h2>
          <p class="muted">Add one to hear about new leads and quality drops on your own systems.</p>
        </div>
      ) : null}
      {hooks && hooks.length > 0 ? (
        <ul class="row-list" aria-label="Webhooks">
          {hooks.map((hook) => (
            <WebhookRow key={hook.id} webhook={hook} onChanged={replace} onDeleted={remove} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function CreateWebhook(props: { onCreated: (webhook: TWebhookCreated) => void; onCancel: () => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<string[]>([WEBHOOK_EVENTS[0]]);
  const [format, setFormat] = useState<TWebhookFormat>('json');
  const { errors, setErrors, notice, isBusy, submit } = useForm();
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);

  const toggle = (event: string, on: boolean) => {
    setEvents((current) => (on ? [...current, event] : current.filter((e) => e !== event)));
    if (errors.events) setErrors(({ events: _, ...rest }) => rest);
  };
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    await submit({
      check: () => ZWebhookCreate.safeParse({ url: url.trim(), events, format }),
      send: async (input) =>
        props.onCreated(await api('/webhooks', ZWebhookCreated, { method: 'POST', body: input })),
      errorsFor: (found) => {
        const together = eventErrorsTogether(found);
        if (together.events && events.length === 0) together.events = ['Choose at least one event.'];
        return together;
      },
      fallback: 'Could not create the webhook.',
    });
  };
  const eventErrors = errors.events ?? [];
  return (
    <form
      class="card form-card"
      onSubmit={(event) => void onSubmit(event)}
      noValidate
      aria-labelledby="webhook-form-title"
    >
      <h2 id="webhook-form-title" ref={heading} tabIndex={-1}>
        New webhook
      </h2>
      <Field
        name="url"
        label="URL"
        type="url"
        hint="Where the events are sent: an http or https address your server answers."
        value={url}
        onInput={(value) => {
          setUrl(value);
          if (errors.url) setErrors(({ url: _, ...rest }) => rest);
        }}
        errors={errors}
        autocomplete="off"
      />
      <fieldset class="choices" aria-describedby={eventErrors.length > 0 ? 'events-error' : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((name) => (
          <label key={name} class="choice">
            <input
              type="checkbox"
              name="events"
              value={name}
              checked={events.includes(name)}
              onChange={(event) => toggle(name, event.currentTarget.checked)}
            />
            <span>
              <code>{name}</code>
              {EVENT_HINTS[name] ? <span class="hint">{EVENT_HINTS[name]}</span> : null}
            </span>
          </label>
        ))}
        {eventErrors.length > 0 ? (
          <p class="field-error" id="events-error">
            <AlertIcon size={16} />
            <span>{eventErrors.join(' ')}</span>
          </p>
        ) : null}
      </fieldset>
      <SelectField
        name="format"
        label="Format"
        hint="Slack: a message with a link to the conversation, for a Slack incoming webhook URL."
        value={format}
        options={Object.entries(FORMAT_LABELS).map(([value, label]) => ({ value, label }))}
        onChange={(value) => setFormat(value === 'slack' ? 'slack' : 'json')}
        errors={errors}
      />
      {notice ? <FormMessage kind={notice.kind}>{notice.text}</FormMessage> : null}
      <FormActions label="Create webhook" busyLabel="Creating…" isBusy={isBusy} onCancel={props.onCancel} />
    </form>
  );
}

function CreatedWebhook(props: { webhook: TWebhookCreated; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useFocusOnShow(heading);
  return (
    <div class="card once-card">
      <h2 ref={heading} tabIndex={-1}>
        Webhook created: its signing secret
      </h2>
      <FormMessage kind="info">
        Copy the signing secret now: you won’t see it again. Your server checks each request’s
        X-Service-Signature with it. If you lose it, delete the webhook and create another.
      </FormMessage>
      <CopySecret value={props.webhook.secret} label="Copy secret" />
      <div class="actions">
        <button type="button" class="button ghost" onClick={props.onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}

function WebhookRow(props: {
  webhook: TWebhook;
  onChanged: (webhook: TWebhook) => void;
  onDeleted: (id: string) => void;
}) {
  const { webhook } = props;
  const [isConfirming, setConfirming] = useState(false);
  const [isBusy, setBusy] = useState(false);
  const [isLogOpen, setLogOpen] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const logId = `deliveries-${webhook.id}`;

  const act = async (work: () => Promise<void>, fallback: string) => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return;
      setMessage(error instanceof Error ? error.message : fallback);
    } finally {
      setBusy(false);
    }
  };
  const path = `/webhooks/${encodeURIComponent(webhook.id)}`;
  const onToggle = () =>
    act(async () => {
      props.onChanged(
        await api(path, ZWebhook, { method: 'PATCH', body: { is_active: !webhook.is_active } }),
      );
    }, 'Could not change the webhook.');
  const onDelete = () =>
    act(async () => {
      await apiVoid(path, { method: 'DELETE' });
      props.onDeleted(webhook.id);
    }, 'Could not delete the webhook.');

  return (
    <li class={`row-card${webhook.is_active ? '' : ' is-revoked'}`}>
      <div class="row-title">
        <h2 class="webhook-url">
          <code>{webhook.url}</code>
        </h2>
        <span class={`badge ${webhook.is_active ? 'ok' : 'draft'}`}>{webhook.is_active ? 'On' : 'Off'}</span>
      </div>
      <dl class="row-facts">
        <div>
          <dt>Events</dt>
          <dd>{webhook.events.join(', ')}</dd>
        </div>
        <div>
          <dt>Format</dt>
          <dd>{FORMAT_LABELS[webhook.format]}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{dateText(webhook.created_at)}</dd>
        </div>
      </dl>
      {isConfirming ? (
        <fieldset class="confirm">
          <legend class="visually-hidden">Delete the webhook {webhook.url}</legend>
          <p>Delete this webhook? Nothing more is sent to it and its delivery log goes with it.</p>
          <div class="actions">
            <button type="button" class="button danger" disabled={isBusy} onClick={() => void onDelete()}>
              {isBusy ? 'Deleting…' : 'Yes, delete it'}
            </button>
            <button type="button" class="button ghost" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </div>
        </fieldset>
      ) : (
        <div class="actions">
          <button type="button" class="button ghost" disabled={isBusy} onClick={() => void onToggle()}>
            {webhook.is_active ? 'Turn off' : 'Turn on'}
          </button>
          <button
            type="button"
            class="button ghost"
            aria-expanded={isLogOpen}
            aria-controls={logId}
            onClick={() => setLogOpen(!isLogOpen)}
          >
            {isLogOpen ? 'Hide deliveries' : 'Show deliveries'}
          </button>
          <button type="button" class="button ghost" onClick={() => setConfirming(true)}>
            Delete…
          </button>
        </div>
      )}
      {message ? <FormMessage kind="error">{message}</FormMessage> : null}
      <div id={logId}>{isLogOpen ? <DeliveryLog webhookId={webhook.id} label={webhook.url} /> : null}</div>
    </li>
  );
}
