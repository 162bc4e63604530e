import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

/**
 * A value shown once (a token, recovery codes) in a monospace block, with a copy button and a
 * status line that says what happened. Without clipboard access the value is selected instead.
 */
export function CopySecret(props: {
  value: string;
  label: string;
  multiline?: boolean;
  /** More buttons beside the copy button (a download). */
  children?: ComponentChildren;
}) {
  const [status, setStatus] = useState('');
  const block = useRef<HTMLElement>(null);
  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setStatus('Copied.');
    } catch {
      // An insecure origin or a denied permission: select it so Ctrl+C copies it.
      const selection = window.getSelection();
      if (block.current && selection) selection.selectAllChildren(block.current);
      setStatus('Selected: press Ctrl+C (or ⌘C) to copy it.');
    }
  };
  return (
    <div class="copy-secret">
      <pre class={`secret-value${props.multiline ? ' multiline' : ''}`}>
        <code ref={block}>{props.value}</code>
      </pre>
      <div class="actions">
        <button type="button" class="button primary" onClick={() => void onCopy()}>
          {props.label}
        </button>
        {props.children}
      </div>
      <p class="copy-status" role="status">
        {status}
      </p>
    </div>
  );
}
