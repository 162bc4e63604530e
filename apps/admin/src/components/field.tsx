import type { ComponentChildren, TargetedEvent } from 'preact';
import { AlertIcon } from './icons';

type FieldProps = {
  /** The input's name, also the key of its errors in the service's `errors`. */
  name: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  errors?: Record<string, string[]>;
  type?: 'text' | 'email' | 'password' | 'url' | 'search';
  autocomplete?: string;
  hint?: string;
  inputMode?: 'numeric' | 'text';
  required?: boolean;
  autofocus?: boolean;
  disabled?: boolean;
};

/** The parts every field shares: its id, its messages, and the ids that describe it. */
export function fieldParts(
  name: string,
  hint: string | undefined,
  errors: Record<string, string[]> | undefined,
) {
  const id = `field-${name}`;
  const messages = errors?.[name] ?? [];
  const described = [hint ? `${id}-hint` : null, messages.length > 0 ? `${id}-error` : null]
    .filter(Boolean)
    .join(' ');
  return {
    id,
    messages,
    aria: {
      'aria-invalid': messages.length > 0 ? ('true' as const) : undefined,
      'aria-describedby': described || undefined,
    },
  };
}

/** The frame around a control: label, hint above, errors below (both read out with the control). */
export function FieldFrame(props: {
  id: string;
  label: string;
  hint: string | undefined;
  messages: string[];
  children: ComponentChildren;
}) {
  const { id, messages } = props;
  return (
    <div class={`field${messages.length > 0 ? ' has-error' : ''}`}>
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {props.children}
      {messages.length > 0 ? (
        <p class="field-error" id={`${id}-error`}>
          <AlertIcon size={16} />
          <span>{messages.join(' ')}</span>
        </p>
      ) : null}
    </div>
  );
}

/** A labelled input with its hint and its errors beside it (read out with the field). */
export function Field(props: FieldProps) {
  const { id, messages, aria } = fieldParts(props.name, props.hint, props.errors);
  const onInput = (event: TargetedEvent<HTMLInputElement>) => props.onInput(event.currentTarget.value);
  return (
    <FieldFrame id={id} label={props.label} hint={props.hint} messages={messages}>
      {inputOf(props.type ?? 'text', {
        id,
        name: props.name,
        value: props.value,
        onInput,
        autocomplete: props.autocomplete,
        inputMode: props.inputMode,
        required: props.required,
        autofocus: props.autofocus,
        disabled: props.disabled,
        ...aria,
      })}
    </FieldFrame>
  );
}

type InputProps = {
  id: string;
  name: string;
  value: string;
  onInput: (event: TargetedEvent<HTMLInputElement>) => void;
  autocomplete: string | undefined;
  inputMode: 'numeric' | 'text' | undefined;
  required: boolean | undefined;
  autofocus: boolean | undefined;
  disabled: boolean | undefined;
  'aria-invalid': 'true' | undefined;
  'aria-describedby': string | undefined;
};

// One literal `type` per branch: preact's input attributes are a union keyed by `type`.
function inputOf(type: NonNullable<FieldProps['type']>, props: InputProps) {
  if (type === 'password') return <input type="password" {...props} />;
  if (type === 'email') return <input type="email" {...props} />;
  if (type === 'url') return <input type="url" {...props} />;
  if (type === 'search') return <input type="search" {...props} />;
  return <input type="text" {...props} />;
}

/** A form-level message (an error the service gave that names no field, or a wait). */
export function FormMessage(props: { kind: 'error' | 'info'; children: string }) {
  return (
    <div class={`form-message ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.kind === 'error' ? <AlertIcon size={18} /> : null}
      <span>{props.children}</span>
    </div>
  );
}

/** A labelled text area with its hint and errors beside it, framed as {@link Field} is. */
export function TextArea(props: {
  name: string;
  label: string;
  rows: number;
  value: string;
  onInput: (value: string) => void;
  errors: Record<string, string[]>;
  hint?: string;
}) {
  const { id, messages, aria } = fieldParts(props.name, props.hint, props.errors);
  return (
    <FieldFrame id={id} label={props.label} hint={props.hint} messages={messages}>
      <textarea
        id={id}
        name={props.name}
        rows={props.rows}
        value={props.value}
        onInput={(event: TargetedEvent<HTMLTextAreaElement>) => props.onInput(event.currentTarget.value)}
        {...aria}
      />
    </FieldFrame>
  );
}

/** A form's two buttons: submit (saying what it does while busy) and Cancel. */
export function FormActions(props: {
  label: string;
  busyLabel: string;
  isBusy: boolean;
  onCancel: () => void;
}) {
  return (
    <div class="actions">
      <button type="submit" class="button primary" disabled={props.isBusy}>
        {props.isBusy ? props.busyLabel : props.label}
      </button>
      <button type="button" class="button ghost" onClick={props.onCancel}>
        Cancel
      </button>
    </div>
  );
}
