import { WELCOME_STARTERS_MAX } from '@service/contract';
import { Field, TextArea } from '../components/field';
import { originLines } from './agent-settings-draft';
import type { SectionProps } from './agent-settings-fields';

/**
 * What the widget says when a visitor opens a new conversation: a greeting and up to four
 * starter questions (one per line). Translations are set through the admin API and kept here.
 */
export function WelcomeSection(props: SectionProps) {
  const { draft, update, errors } = props;
  const starterErrors = Object.entries(errors)
    .filter(([key]) => key === 'welcome.starters' || key.startsWith('welcome.starters.'))
    .flatMap(([key, messages]) => {
      const index = /\.(\d+)$/.exec(key)?.[1];
      return index === undefined
        ? messages
        : messages.map((text) => `Question ${Number(index) + 1}: ${text}`);
    });
  const count = originLines(draft.welcome.starters).length;
  const languages = Object.keys(draft.welcome.translations).sort();
  return (
    <section class="card settings-section" aria-labelledby="settings-welcome">
      <h2 id="settings-welcome">Welcome</h2>
      <Field
        name="welcome.greeting"
        label="Greeting"
        value={draft.welcome.greeting}
        onInput={(greeting) => update({ welcome: { ...draft.welcome, greeting } })}
        errors={errors}
        hint="Said first when a visitor opens a new conversation. Empty: no greeting."
      />
      <TextArea
        name="welcome.starters"
        label="Starter questions"
        rows={4}
        value={draft.welcome.starters}
        onInput={(starters) => update({ welcome: { ...draft.welcome, starters } })}
        errors={starterErrors.length > 0 ? { 'welcome.starters': starterErrors } : {}}
        hint={`One question per line, up to ${WELCOME_STARTERS_MAX} (${count} now); a visitor asks one with a click. ${
          languages.length > 0
            ? `Translated into: ${languages.join(', ')} (set through the admin API).`
            : 'Translations are set through the admin API.'
        }`}
      />
    </section>
  );
}
