import type { TAgent } from '@service/contract';
import type { TargetedEvent } from 'preact';
import { Field, TextArea } from '../components/field';
import { AlertIcon } from '../components/icons';
import { allowsAnySite, type Draft, originErrors } from './agent-settings-draft';

/** Props of a settings section: the draft, how to change it, the errors to show. */
export type SectionProps = {
  draft: Draft;
  update: (change: Partial<Draft>) => void;
  errors: Record<string, string[]>;
};

/** A checkbox with its label and an optional hint under it. */
export function Toggle(props: {
  id: string;
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div class="toggle">
      <input
        id={props.id}
        type="checkbox"
        checked={props.checked}
        aria-describedby={props.hint ? `${props.id}-hint` : undefined}
        onChange={(event: TargetedEvent<HTMLInputElement>) => props.onChange(event.currentTarget.checked)}
      />
      <label for={props.id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${props.id}-hint`}>
          {props.hint}
        </p>
      ) : null}
    </div>
  );
}

/** Name, instructions, default language and whether the widget answers at all. */
export function AgentSection(props: SectionProps) {
  const { draft, update, errors } = props;
  return (
    <section class="card settings-section" aria-labelledby="settings-agent">
      <h2 id="settings-agent">Agent</h2>
      <Field
        name="name"
        label="Name"
        value={draft.name}
        onInput={(name) => update({ name })}
        errors={errors}
        hint="Visitors see it in the chat header."
        required
      />
      <TextArea
        name="system_prompt"
        label="Instructions"
        rows={7}
        value={draft.systemPrompt}
        onInput={(systemPrompt) => update({ systemPrompt })}
        errors={errors}
        hint={`Who the agent is and how it answers: tone, what to offer, what to avoid. Added after the service’s own rules, which it cannot override. ${draft.systemPrompt.length} of 8000 characters.`}
      />
      <Field
        name="language_default"
        label="Default language"
        value={draft.languageDefault}
        onInput={(languageDefault) => update({ languageDefault })}
        errors={errors}
        hint="A language tag such as en, de or pt-BR, used when the page declares none. Empty: the visitor’s browser language."
      />
      <Toggle
        id="field-is_published"
        label="Published"
        hint="The widget answers on the allowed sites only while the agent is published."
        checked={draft.isPublished}
        onChange={(isPublished) => update({ isPublished })}
      />
    </section>
  );
}

/**
 * The allowed origins, one per line, checked as typed with the contract's own origin parser;
 * `*` is allowed but said plainly.
 */
export function OriginsSection(props: SectionProps) {
  const { draft, update, errors } = props;
  const live = Object.values(originErrors(draft.origins)).flat();
  const fromSave = Object.entries(errors)
    .filter(([key]) => key === 'allowed_origins' || key.startsWith('allowed_origins.'))
    .flatMap(([, messages]) => messages);
  const shown = live.length > 0 ? live : fromSave;
  return (
    <section class="card settings-section" aria-labelledby="settings-origins">
      <h2 id="settings-origins">Where it loads</h2>
      <TextArea
        name="allowed_origins"
        label="Allowed sites"
        rows={4}
        value={draft.origins}
        onInput={(origins) => update({ origins })}
        errors={shown.length > 0 ? { allowed_origins: shown } : {}}
        hint="One origin per line, such as https://shop.example.com (scheme and host, with a port when it is not the usual one; no path). The widget loads on these sites only; none means nowhere."
      />
      {allowsAnySite(draft.origins) ? (
        <div class="form-message warning" role="status">
          <AlertIcon size={18} />
          <span>
            <strong>* allows any site.</strong> Every website, including ones you do not own, can embed this
            agent and use it (and its answers cost you). Use it only while testing, then list your own sites.
          </span>
        </div>
      ) : null}
    </section>
  );
}

const FEATURES: Array<{ key: keyof TAgent['widget_features']; label: string; hint: string }> = [
  {
    key: 'leads',
    label: 'Leads',
    hint: 'Visitors can leave their name, email and phone; they reach your site and your webhooks.',
  },
  {
    key: 'human',
    label: 'Human handoff',
    hint: 'Visitors can ask for a person; the conversation waits in the inbox for someone to take it.',
  },
  {
    key: 'satisfaction',
    label: 'Satisfaction',
    hint: 'Visitors are asked whether the conversation helped when they close the chat.',
  },
];

/** The widget's optional features, coupons (which follow the site) and page indexing. */
export function FeaturesSection(props: SectionProps & { siteType: TAgent['site_type'] }) {
  const { draft, update } = props;
  return (
    <section class="card settings-section" aria-labelledby="settings-features">
      <h2 id="settings-features">Features</h2>
      {FEATURES.map((feature) => (
        <Toggle
          key={feature.key}
          id={`field-widget_features-${feature.key}`}
          label={feature.label}
          hint={feature.hint}
          checked={draft.features[feature.key]}
          onChange={(checked) => update({ features: { ...draft.features, [feature.key]: checked } })}
        />
      ))}
      <div class="toggle static">
        <span class="toggle-label">Coupons</span>
        <p class="hint">
          {props.siteType === 'ecommerce'
            ? 'On by themselves while your shop’s plugin syncs coupons: the chat can then offer them with an Apply button.'
            : 'Follow your shop: once a shop plugin syncs products and coupons, the chat can offer them with an Apply button.'}
        </p>
      </div>
      <Toggle
        id="field-auto_index_pages"
        label="Read the pages visitors chat from"
        hint="Pages of your explicitly allowed sites are added to the knowledge when a visitor chats on them."
        checked={draft.autoIndexPages}
        onChange={(autoIndexPages) => update({ autoIndexPages })}
      />
    </section>
  );
}
