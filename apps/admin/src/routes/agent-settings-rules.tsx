import { BEHAVIOR_TRIGGERS } from '@service/contract';
import type { TargetedEvent } from 'preact';
import { Field } from '../components/field';
import { PlusIcon, TrashIcon } from '../components/icons';
import { MAX_RULES, type RuleDraft, ruleKey } from './agent-settings-draft';
import type { SectionProps } from './agent-settings-fields';

const TRIGGERS: Record<RuleDraft['trigger'], { label: string; threshold: string | null; hint: string }> = {
  scroll: { label: 'Scroll depth', threshold: 'Percent of the page', hint: '1 to 100' },
  idle: { label: 'Idle time', threshold: 'Seconds without activity', hint: '1 to 3600' },
  exit_intent: { label: 'Exit intent', threshold: null, hint: 'The pointer leaves towards the tabs' },
  time_on_page: { label: 'Time on page', threshold: 'Seconds on the page', hint: '1 to 3600' },
};

/**
 * Proactive triggers: each fires once per page view and either opens the chat or shows a
 * message by the launcher. Add, edit, remove; at most {@link MAX_RULES}.
 */
export function RulesSection(props: SectionProps) {
  const { draft, update, errors } = props;
  const setRule = (index: number, change: Partial<RuleDraft>) =>
    update({ rules: draft.rules.map((rule, at) => (at === index ? { ...rule, ...change } : rule)) });
  const add = () =>
    update({
      rules: [
        ...draft.rules,
        { key: ruleKey(), trigger: 'time_on_page', threshold: '30', action: 'message', message: '' },
      ],
    });
  const remove = (index: number) => update({ rules: draft.rules.filter((_, at) => at !== index) });
  const isFull = draft.rules.length >= MAX_RULES;
  return (
    <section class="card settings-section" aria-labelledby="settings-rules">
      <h2 id="settings-rules">Behaviour rules</h2>
      <p class="muted">
        Start the conversation yourself: when a visitor scrolls, idles, is about to leave or has read for a
        while. Each rule fires once per page view.
      </p>
      {errors.behavior_rules ? <p class="field-error">{errors.behavior_rules.join(' ')}</p> : null}
      {draft.rules.length === 0 ? (
        <p class="muted empty-rules">No rules: the chat waits to be opened.</p>
      ) : null}
      <ol class="rules" aria-label="Behaviour rules">
        {draft.rules.map((rule, index) => {
          const name = `behavior_rules.${index}`;
          const trigger = TRIGGERS[rule.trigger];
          return (
            <li key={rule.key} class="rule">
              <div class="rule-head">
                <h3>Rule {index + 1}</h3>
                <button type="button" class="button ghost small danger" onClick={() => remove(index)}>
                  <TrashIcon size={16} />
                  <span>Remove</span>
                  <span class="sr-only"> rule {index + 1}</span>
                </button>
              </div>
              <div class="rule-fields">
                <div class="field">
                  <label for={`field-${name}.trigger`}>When</label>
                  <select
                    id={`field-${name}.trigger`}
                    value={rule.trigger}
                    onChange={(event: TargetedEvent<HTMLSelectElement>) => {
                      const next = BEHAVIOR_TRIGGERS.find((known) => known === event.currentTarget.value);
                      if (next) setRule(index, { trigger: next });
                    }}
                  >
                    {BEHAVIOR_TRIGGERS.map((known) => (
                      <option key={known} value={known}>
                        {TRIGGERS[known].label}
                      </option>
                    ))}
                  </select>
                </div>
                {trigger.threshold ? (
                  <Field
                    name={`${name}.threshold`}
                    label={trigger.threshold}
                    hint={trigger.hint}
                    inputMode="numeric"
                    value={rule.threshold}
                    onInput={(threshold) => setRule(index, { threshold })}
                    errors={errors}
                  />
                ) : (
                  <p class="hint rule-note">{trigger.hint}.</p>
                )}
                <div class="field">
                  <label for={`field-${name}.action`}>Then</label>
                  <select
                    id={`field-${name}.action`}
                    value={rule.action}
                    onChange={(event: TargetedEvent<HTMLSelectElement>) =>
                      setRule(index, { action: event.currentTarget.value === 'open' ? 'open' : 'message' })
                    }
                  >
                    <option value="message">Show a message</option>
                    <option value="open">Open the chat</option>
                  </select>
                </div>
              </div>
              {rule.action === 'message' ? (
                <Field
                  name={`${name}.message`}
                  label="Message"
                  hint="Shown in a bubble by the chat button, e.g. “Questions about sizes? Ask me.”"
                  value={rule.message}
                  onInput={(message) => setRule(index, { message })}
                  errors={errors}
                />
              ) : null}
            </li>
          );
        })}
      </ol>
      <div class="actions">
        <button type="button" class="button ghost" onClick={add} disabled={isFull}>
          <PlusIcon size={18} />
          <span>Add rule</span>
        </button>
        {isFull ? <p class="hint">At most {MAX_RULES} rules.</p> : null}
      </div>
    </section>
  );
}
