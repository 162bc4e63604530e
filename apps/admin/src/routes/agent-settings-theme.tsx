import { LAUNCHER_POSITIONS, ZSiteTheme } from '@service/contract';
import type { TargetedEvent } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api';
import { Field, FieldFrame, fieldParts } from '../components/field';
import type { Draft } from './agent-settings-draft';
import type { SectionProps } from './agent-settings-fields';

const FULL_HEX = /^#[0-9a-f]{6}$/i;
const SHORT_HEX = /^#[0-9a-f]{3}$/i;

/** What a colour picker can show for a typed value (it takes only #rrggbb). */
function pickerValue(typed: string, fallback: string): string {
  const value = typed.trim();
  if (FULL_HEX.test(value)) return value.toLowerCase();
  if (SHORT_HEX.test(value)) return `#${[...value.slice(1)].map((c) => c + c).join('')}`.toLowerCase();
  return fallback;
}

/** A hex colour: typed, or picked with the browser's colour picker beside it. */
function ColorField(props: {
  name: 'primary' | 'accent';
  label: string;
  hint: string;
  draft: Draft;
  update: SectionProps['update'];
  errors: SectionProps['errors'];
}) {
  const value = props.draft.theme[props.name];
  const set = (next: string) => props.update({ theme: { ...props.draft.theme, [props.name]: next } });
  const { id, messages, aria } = fieldParts(`theme.${props.name}`, props.hint, props.errors);
  const onInput = (event: TargetedEvent<HTMLInputElement>) => set(event.currentTarget.value);
  return (
    <FieldFrame id={id} label={props.label} hint={props.hint} messages={messages}>
      <div class="color-row">
        <input
          id={id}
          type="text"
          name={`theme.${props.name}`}
          value={value}
          onInput={onInput}
          spellcheck={false}
          {...aria}
        />
        <input
          type="color"
          class="swatch"
          aria-label={`Pick the ${props.label.toLowerCase()}`}
          value={pickerValue(value, '#000000')}
          onInput={onInput}
        />
      </div>
    </FieldFrame>
  );
}

/**
 * "Use my site's colour": the service reads the first allowed site's theme colour and suggests a
 * contrast-checked primary; it lands in the form unsaved, like a typed one.
 */
function SiteColor(props: { agentId: string; onColor: (primary: string) => void }) {
  const [state, setState] = useState<{ busy: boolean; text: string; isError: boolean }>({
    busy: false,
    text: '',
    isError: false,
  });
  const read = async () => {
    setState({ busy: true, text: 'Reading your site…', isError: false });
    try {
      const theme = await api(`/agents/${encodeURIComponent(props.agentId)}/theme/from-site`, ZSiteTheme, {
        method: 'POST',
        body: {},
      });
      props.onColor(theme.primary);
      const adjusted = theme.is_adjusted
        ? ` As link colour on white it is darkened to ${theme.primary_text}.`
        : '';
      setState({
        busy: false,
        text: `Found ${theme.site_color} on ${theme.source_url}. Text on it: ${theme.on_primary} (contrast ${theme.contrast}:1).${adjusted} Save to keep it.`,
        isError: false,
      });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      setState({ busy: false, text: error.errors.url?.[0] ?? error.message, isError: true });
    }
  };
  return (
    <div class="site-color">
      <button type="button" class="button ghost" onClick={read} disabled={state.busy}>
        Use my site’s colour
      </button>
      <p class={state.isError ? 'field-error' : 'hint'} role="status">
        {state.text || 'Reads the theme colour of your first allowed site’s home page.'}
      </p>
    </div>
  );
}

/** The widget's look: colours, corner radius, corner, the launcher's text. */
export function ThemeSection(props: SectionProps & { agentId: string }) {
  const { draft, update, errors } = props;
  const setTheme = (change: Partial<Draft['theme']>) => update({ theme: { ...draft.theme, ...change } });
  return (
    <section class="card settings-section" aria-labelledby="settings-theme">
      <h2 id="settings-theme">Appearance</h2>
      <div class="theme-grid">
        <ColorField
          name="primary"
          label="Main colour"
          hint="The button, the header, the visitor’s messages. Hex, e.g. #1f6feb."
          draft={draft}
          update={update}
          errors={errors}
        />
        <ColorField
          name="accent"
          label="Accent colour"
          hint="Focus rings and coupon codes."
          draft={draft}
          update={update}
          errors={errors}
        />
        <Field
          name="theme.radius"
          label="Corner radius"
          hint="Of the chat panel, in pixels (0 to 32)."
          inputMode="numeric"
          value={draft.theme.radius}
          onInput={(radius) => setTheme({ radius })}
          errors={errors}
        />
        <Field
          name="theme.launcher_label"
          label="Button text"
          hint="Beside the chat icon (1 to 40 characters)."
          value={draft.theme.launcherLabel}
          onInput={(launcherLabel) => setTheme({ launcherLabel })}
          errors={errors}
        />
      </div>
      <SiteColor agentId={props.agentId} onColor={(primary) => setTheme({ primary })} />
      <fieldset class="positions">
        <legend>Corner</legend>
        {LAUNCHER_POSITIONS.map((position) => (
          <label class="radio" key={position}>
            <input
              type="radio"
              name="theme-position"
              value={position}
              checked={draft.theme.position === position}
              onChange={() => setTheme({ position })}
            />
            <span>{position === 'bottom-right' ? 'Bottom right' : 'Bottom left'}</span>
          </label>
        ))}
      </fieldset>
    </section>
  );
}
