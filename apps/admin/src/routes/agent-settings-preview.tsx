import {
  type TWidgetPreviewMessage,
  WIDGET_PREVIEW_AGENT,
  WIDGET_PREVIEW_READY,
  ZWidgetPreviewMessage,
} from '@service/contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { API_BASE } from '../api';
import { bodyOf, type Draft } from './agent-settings-draft';

/** The examples the preview's panel shows, so the colours can be judged on real messages. */
const SAMPLES: TWidgetPreviewMessage['samples'] = [
  { role: 'assistant', text: 'Hello! Ask me anything about our products, orders or delivery.' },
  { role: 'visitor', text: 'Do you ship abroad?' },
  { role: 'assistant', text: 'Yes, to most countries in Europe, within 3 to 5 working days.' },
];

/** The preview message for the draft as it is (unsaved edits included). */
function messageOf(draft: Draft): TWidgetPreviewMessage | null {
  const body = bodyOf(draft);
  const parsed = ZWidgetPreviewMessage.safeParse({
    type: WIDGET_PREVIEW_AGENT,
    agent: {
      name: body.name.trim().slice(0, 120),
      language_default: body.language_default?.trim() || null,
      theme: {
        ...body.theme,
        primary: body.theme.primary.slice(0, 7),
        accent: body.theme.accent.slice(0, 7),
        radius: Number.isFinite(body.theme.radius) ? body.theme.radius : 0,
        launcher_label: body.theme.launcher_label.slice(0, 40),
      },
      features: body.widget_features,
    },
    // The greeting as the visitor will see it first (the samples' own otherwise).
    samples: body.welcome.greeting.trim()
      ? [{ role: 'assistant', text: body.welcome.greeting.trim().slice(0, 300) }, ...SAMPLES.slice(1)]
      : SAMPLES,
    note: 'Preview only: nothing is sent',
  });
  return parsed.success ? parsed.data : null;
}

/**
 * The real widget bundle, as the service serves it, in a same-origin frame
 * (`GET /api/v1/admin/widget-preview`, preview mode: no visitor, no conversation). It says
 * when it runs; from then on every change of the draft is posted to it, to this origin only.
 */
export function WidgetPreview(props: { draft: Draft }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [isReady, setReady] = useState(false);
  const message = messageOf(props.draft);
  const latest = useRef(message);
  latest.current = message;

  const post = (next: TWidgetPreviewMessage | null) => {
    if (next) frame.current?.contentWindow?.postMessage(next, location.origin);
  };

  useEffect(() => {
    const onMessage = (event: MessageEvent) => {
      // Only the frame's own page, on this origin, can say it is ready.
      if (event.origin !== location.origin || event.source !== frame.current?.contentWindow) return;
      const data: unknown = event.data;
      if (typeof data !== 'object' || data === null || !('type' in data)) return;
      if (data.type !== WIDGET_PREVIEW_READY) return;
      setReady(true);
      post(latest.current);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, []);

  const serialized = JSON.stringify(message);
  useEffect(() => {
    if (isReady) post(latest.current);
  }, [isReady, serialized]);

  return (
    <aside class="settings-preview" aria-labelledby="settings-preview-title">
      <h2 id="settings-preview-title">Preview</h2>
      <p class="hint">
        The widget as your visitors will see it, with your unsaved changes. Open it with its button; try
        questions in the Playground.
      </p>
      <div class="preview-stage">
        <iframe ref={frame} src={`${API_BASE}/widget-preview`} title="Widget preview" loading="eager" />
      </div>
    </aside>
  );
}
