import { z } from 'zod';
import { ZTheme } from './agent.js';
import { zText } from './text.js';
import { ZWidgetFeatureSettings } from './widget-settings.js';

// The console's live preview of the widget (GET /api/v1/admin/widget-preview, framed by the
// agent settings screen): the widget bundle in preview mode and its parent page talk by
// postMessage, both on the service's own origin. The widget mirrors these as plain values
// (no zod in its bundle); its tests keep them in step.

/** Preview → console: the bundle runs; answer with the look to show. */
export const WIDGET_PREVIEW_READY = 'service-widget-preview:ready';
/** Console → preview: the agent's look, unsaved edits included. */
export const WIDGET_PREVIEW_AGENT = 'service-widget-preview:agent';

/** One example message shown in the preview's panel. */
export const ZWidgetPreviewSample = z.object({
  role: z.enum(['assistant', 'visitor', 'operator']),
  text: zText().max(500),
});

/** What the console posts to the preview (the theme as edited: the widget falls back on bad values). */
export const ZWidgetPreviewMessage = z.object({
  type: z.literal(WIDGET_PREVIEW_AGENT),
  agent: z.object({
    name: zText().max(120),
    language_default: zText().nullable(),
    theme: ZTheme.extend({
      primary: zText().max(7),
      accent: zText().max(7),
      radius: z.number(),
      launcher_label: zText().max(40),
    }),
    features: ZWidgetFeatureSettings,
  }),
  samples: z.array(ZWidgetPreviewSample).max(10),
  /** The disabled composer's placeholder: why nothing can be sent here. */
  note: zText().max(200),
});
export type TWidgetPreviewMessage = z.infer<typeof ZWidgetPreviewMessage>;
