import type { TApi } from './api.js';
import type { TFeatures } from './types.js';

/** Flat details of a behaviour event (`POST /v1/widget/events`). */
export type TEventData = Record<string, string | number | boolean | null>;

/** What cards and forms need from the running widget. */
export type TCtx = {
  doc: Document;
  api: TApi;
  features: TFeatures;
  /** The resolved UI language (for number and currency formatting). */
  lang: string;
  /** Sends a visitor message, as if typed. */
  send: (text: string) => void;
  /** Records a behaviour event (fire and forget). */
  event: (kind: string, data?: TEventData) => void;
  /** Asks for a human operator. */
  requestHuman: () => void;
  /** Shows a short status line in the message list. */
  notice: (text: string) => void;
  /** Scrolls the message list to its end. */
  scroll: () => void;
};
