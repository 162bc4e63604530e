import { type TAgent, ZAgent } from '@service/contract';
import type { TargetedSubmitEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { ApiError, api } from '../api';
import { AgentTabs } from '../components/agent-tabs';
import { FormMessage } from '../components/field';
import { changesOf, type Draft, draftErrors, draftOf, isDirty, originErrors } from './agent-settings-draft';
import { AgentSection, FeaturesSection, OriginsSection } from './agent-settings-fields';
import { WidgetPreview } from './agent-settings-preview';
import { RulesSection } from './agent-settings-rules';
import { ThemeSection } from './agent-settings-theme';
import { WelcomeSection } from './agent-settings-welcome';
import './agent-settings.css';

type Notice = { kind: 'error' | 'info'; text: string } | null;

/** Moves the focus to the first field marked invalid, once the errors are on screen. */
function focusFirstError(): void {
  requestAnimationFrame(() => {
    const field = document.querySelector<HTMLElement>('.settings-form [aria-invalid="true"]');
    field?.focus();
  });
}

/**
 * An agent's settings: name, instructions, language, publishing, allowed sites, features,
 * behaviour rules and appearance, saved together with one PATCH (the contract's ZAgentUpdate
 * checks the form first; the service's 422 lands next to the same fields), beside a live
 * preview of the real widget that follows every unsaved edit.
 */
export function AgentSettings() {
  const { params } = useRoute();
  const agentId = params.id ?? '';
  const path = `/agents/${encodeURIComponent(agentId)}`;
  const [saved, setSaved] = useState<TAgent | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [notice, setNotice] = useState<Notice>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [isSaving, setSaving] = useState(false);

  useEffect(() => {
    api(path, ZAgent)
      .then((agent) => {
        setSaved(agent);
        setDraft(draftOf(agent));
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 401) return;
        setLoadError(
          error instanceof ApiError && error.status === 404
            ? 'There is no such agent in this workspace.'
            : error instanceof Error
              ? error.message
              : 'Could not load the agent.',
        );
      });
  }, [path]);

  const dirty = draft !== null && saved !== null && isDirty(draft, saved);

  // Leaving the page (reload, closing the tab) with unsaved edits asks first.
  useEffect(() => {
    if (!dirty) return;
    const onLeave = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onLeave);
    return () => window.removeEventListener('beforeunload', onLeave);
  }, [dirty]);

  const update = (change: Partial<Draft>) => {
    setDraft((current) => (current ? { ...current, ...change } : current));
    setNotice(null);
    // The origins are checked as typed: an older save's verdict on them no longer holds.
    if (change.origins !== undefined) {
      setErrors((current) =>
        Object.fromEntries(Object.entries(current).filter(([key]) => !key.startsWith('allowed_origins'))),
      );
    }
  };

  const onSubmit = async (event: TargetedSubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!draft || !saved) return;
    const found = { ...draftErrors(draft), ...originErrors(draft.origins) };
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setNotice({ kind: 'error', text: 'Some fields need a change: see the messages next to them.' });
      focusFirstError();
      return;
    }
    if (!isDirty(draft, saved)) {
      setNotice({ kind: 'info', text: 'Nothing to save.' });
      return;
    }
    setSaving(true);
    setNotice(null);
    try {
      const agent = await api(path, ZAgent, { method: 'PATCH', body: changesOf(draft, saved) });
      setSaved(agent);
      setDraft(draftOf(agent));
      setNotice({ kind: 'info', text: 'Saved.' });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) return;
      setErrors(error.errors);
      setNotice({ kind: 'error', text: error.message });
      focusFirstError();
    } finally {
      setSaving(false);
    }
  };

  const onReset = () => {
    if (!saved) return;
    setDraft(draftOf(saved));
    setErrors({});
    setNotice({ kind: 'info', text: 'Changes discarded.' });
  };

  return (
    <section class="page agent-settings" aria-labelledby="settings-title">
      <AgentTabs agentId={agentId} agentName={saved?.name ?? null} />
      <h1 id="settings-title">Settings</h1>
      {loadError ? <FormMessage kind="error">{loadError}</FormMessage> : null}
      {!draft && !loadError ? (
        <p class="muted" aria-busy="true">
          Loading settings…
        </p>
      ) : null}
      {draft && saved ? (
        <div class="settings-layout">
          <form class="settings-form" onSubmit={onSubmit} noValidate aria-labelledby="settings-title">
            <AgentSection draft={draft} update={update} errors={errors} />
            <OriginsSection draft={draft} update={update} errors={errors} />
            <FeaturesSection draft={draft} update={update} errors={errors} siteType={saved.site_type} />
            <RulesSection draft={draft} update={update} errors={errors} />
            <WelcomeSection draft={draft} update={update} errors={errors} />
            <ThemeSection draft={draft} update={update} errors={errors} agentId={agentId} />
            {notice?.kind === 'error' ? <FormMessage kind="error">{notice.text}</FormMessage> : null}
            <div class="save-bar">
              <p class={`save-state${dirty ? ' dirty' : ''}`} role="status">
                {dirty ? 'Unsaved changes' : notice?.kind === 'info' ? notice.text : 'All changes saved'}
              </p>
              <div class="actions">
                <button type="button" class="button ghost" onClick={onReset} disabled={!dirty || isSaving}>
                  Reset
                </button>
                <button type="submit" class="button primary" disabled={isSaving}>
                  {isSaving ? 'Saving…' : 'Save'}
                </button>
              </div>
            </div>
          </form>
          <WidgetPreview draft={draft} />
        </div>
      ) : null}
    </section>
  );
}
