import { type TAgent, type TKbSettings, ZAgent, ZKbSettings, ZKbSettingsUpdate } from '@service/contract';
import { useEffect, useState } from 'preact/hooks';
import { z } from 'zod';
import { ApiError, api } from '../api';
import { Field, FieldFrame, FormMessage, fieldParts } from '../components/field';
import { useForm } from '../components/use-form';
import { PATHS } from '../paths';
import { session } from '../session';
import { type KbSettingsDraft, kbSettingsBody } from './quality-shared';
import { SelectField } from './select-field';
import './access.css';
import './quality.css';

const draftOf = (settings: TKbSettings): KbSettingsDraft => ({
  title: settings.title,
  logo_url: settings.logo_url ?? '',
  color: settings.color ?? '',
  widget_agent_id: settings.widget_agent_id ?? '',
});

/** How the workspace's public knowledge base looks, and which agent's widget its pages embed. */
export function KbSettings() {
  const [settings, setSettings] = useState<TKbSettings | null>(null);
  const [draft, setDraft] = useState<KbSettingsDraft | null>(null);
  const [agents, setAgents] = useState<TAgent[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [saved, setSaved] = useState('');
  const form = useForm();

  useEffect(() => {
    const onError = (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) return;
      setLoadError(error instanceof Error ? error.message : 'Could not load the settings.');
    };
    api('/kb/settings', ZKbSettings)
      .then((next) => {
        setSettings(next);
        setDraft(draftOf(next));
      })
      .catch(onError);
    api('/agents?limit=100', z.array(ZAgent)).then(setAgents).catch(onError);
  }, []);

  const set = (field: keyof KbSettingsDraft) => (value: string) => {
    setDraft((current) => (current ? { ...current, [field]: value } : current));
    setSaved('');
    if (form.errors[field]) form.setErrors(({ [field]: _, ...rest }) => rest);
  };

  const onSubmit = (event: Event) => {
    event.preventDefault();
    if (!draft) return;
    setSaved('');
    void form.submit({
      check: () => ZKbSettingsUpdate.safeParse(kbSettingsBody(draft)),
      send: async (body) => {
        const next = await api('/kb/settings', ZKbSettings, { method: 'PATCH', body });
        setSettings(next);
        setDraft(draftOf(next));
        setSaved('Settings saved: the public pages show them now.');
      },
      fallback: 'Could not save the settings.',
    });
  };

  const workspace = session.value?.workspace.name ?? 'Your workspace';
  const published = agents?.filter((agent) => agent.is_published) ?? [];
  const chosen = agents?.find((agent) => agent.id === draft?.widget_agent_id);
  return (
    <section class="page kb-settings" aria-labelledby="kb-settings-title">
      <p class="muted crumb">
        <a href={PATHS.kb}>Knowledge base</a> / Settings
      </p>
      <h1 id="kb-settings-title">Knowledge base settings</h1>
      <p class="muted">
        How your public help pages look — their title, logo and colour — and whether a chat widget answers
        readers on every page.
      </p>
      {loadError ? <FormMessage kind="error">{loadError}</FormMessage> : null}
      {draft === null ? (
        loadError ? null : (
          <p class="muted" aria-busy="true">
            Loading…
          </p>
        )
      ) : (
        <form class="card form-card" onSubmit={onSubmit} noValidate>
          <Field
            name="title"
            label="Title"
            hint={`Empty shows “${workspace} help centre”.`}
            value={draft.title}
            onInput={set('title')}
            errors={form.errors}
          />
          <Field
            name="logo_url"
            label="Logo address (optional)"
            hint="An https:// address, or a path on this service such as /files/logo.svg."
            type="url"
            value={draft.logo_url}
            onInput={set('logo_url')}
            errors={form.errors}
          />
          <ColorField value={draft.color} onInput={set('color')} errors={form.errors} />
          <SelectField
            name="widget_agent_id"
            label="Chat widget on the pages"
            hint={
              chosen && !chosen.is_published
                ? 'This agent is not published: the pages show no widget until it is.'
                : 'Add the knowledge base’s address to the agent’s allowed sites (its Settings tab).'
            }
            value={draft.widget_agent_id}
            options={[
              { value: '', label: 'None' },
              ...(agents ?? []).map((agent) => ({
                value: agent.id,
                label: published.includes(agent) ? agent.name : `${agent.name} (not published)`,
              })),
            ]}
            onChange={set('widget_agent_id')}
            errors={form.errors}
          />
          {form.notice ? <FormMessage kind={form.notice.kind}>{form.notice.text}</FormMessage> : null}
          <div class="actions">
            <button type="submit" class="button primary" disabled={form.isBusy}>
              {form.isBusy ? 'Saving…' : 'Save settings'}
            </button>
            {settings ? (
              <a class="button ghost" href={settings.url} target="_blank" rel="noopener">
                Open the public knowledge base
              </a>
            ) : null}
          </div>
          <p class="copy-status" role="status">
            {saved}
          </p>
        </form>
      )}
    </section>
  );
}

/** The colour as `#rrggbb` text, with the browser's colour picker beside the box. */
function ColorField(props: {
  value: string;
  onInput: (value: string) => void;
  errors: Record<string, string[]>;
}) {
  const hint = 'Written #rrggbb. Links and buttons take it, kept readable in light and dark.';
  const { id, messages, aria } = fieldParts('color', hint, props.errors);
  return (
    <FieldFrame id={id} label="Colour (optional)" hint={hint} messages={messages}>
      <div class="kb-color">
        <input
          type="text"
          id={id}
          name="color"
          value={props.value}
          onInput={(event) => props.onInput(event.currentTarget.value)}
          {...aria}
        />
        <input
          type="color"
          aria-label="Pick the colour"
          value={/^#[0-9a-f]{6}$/i.test(props.value) ? props.value : '#2f5bd3'}
          onInput={(event) => props.onInput(event.currentTarget.value)}
        />
      </div>
    </FieldFrame>
  );
}
