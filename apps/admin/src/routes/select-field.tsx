import type { TargetedEvent } from 'preact';
import { FieldFrame, fieldParts } from '../components/field';

/** A labelled select with its hint and errors, framed as the console's other fields are. */
export function SelectField(props: {
  name: string;
  label: string;
  value: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  onChange: (value: string) => void;
  errors?: Record<string, string[]>;
  hint?: string;
}) {
  const { id, messages, aria } = fieldParts(props.name, props.hint, props.errors);
  return (
    <FieldFrame id={id} label={props.label} hint={props.hint} messages={messages}>
      <select
        id={id}
        name={props.name}
        value={props.value}
        onChange={(event: TargetedEvent<HTMLSelectElement>) => props.onChange(event.currentTarget.value)}
        {...aria}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldFrame>
  );
}
