// The wire shapes the widget reads, mirrored from packages/contract/src/widget.ts as plain
// types (zod stays out of the bundle); contract-types.test.ts keeps them in step.

/** A citation: `[N]` in an answer refers to the source with `id` N. */
export type TCitation = { id: number; url: string | null; title: string };

/** A chat block: product card, coupon card, suggestion chips or the escalation button. */
export type TBlock = { type: string; payload: Record<string, unknown> };

/** One message of a conversation. */
export type TMessage = {
  id: string;
  role: string;
  content: string;
  citations: TCitation[];
  blocks: TBlock[];
  /** An answer given verbatim from the team's saved correction. */
  from_team?: boolean;
};

/** One proactive trigger of the agent. */
export type TRule = {
  trigger: 'scroll' | 'idle' | 'exit_intent' | 'time_on_page';
  threshold?: number | undefined;
  action: 'open' | 'message';
  message?: string | undefined;
};

/** The agent's theme. */
export type TTheme = {
  position: string;
  primary: string;
  accent: string;
  radius: number;
  launcher_label: string;
  /** Text colour on `primary` (WCAG AA), from the service. */
  on_primary?: string;
  /** `primary`, darkened when needed, for text on white (links, chips). */
  primary_text?: string;
};

/** The greeting and starter questions of a new conversation. */
export type TWelcome = { greeting: string; starters: string[] };

/** Which optional features the agent turned on. */
export type TFeatures = { coupons: boolean; leads: boolean; human: boolean; satisfaction: boolean };

/** `data` of the init answer (the fields the widget uses). */
export type TInit = {
  token: string;
  conversation_id: string;
  conversation_status: string;
  agent: {
    name: string;
    language_default: string | null;
    theme: TTheme;
    welcome?: TWelcome;
    features: TFeatures;
    behavior_rules: TRule[];
  };
  messages: TMessage[];
};

/** Body of `POST /v1/widget/init`. */
export type TInitRequest = {
  agent_id: string;
  anon_id: string;
  page_url?: string;
  page_title?: string;
  referrer?: string;
  locale?: string;
  shopper_token?: string;
};

/** Whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field of an untyped object, or '' when missing. */
export function str(value: unknown, key: string): string {
  const field = isRecord(value) ? value[key] : undefined;
  return typeof field === 'string' ? field : typeof field === 'number' ? String(field) : '';
}

/** Whether an init answer has the fields the widget cannot work without. */
export function isInit(value: unknown): value is TInit {
  if (!isRecord(value) || typeof value.token !== 'string' || typeof value.conversation_id !== 'string') {
    return false;
  }
  const agent = value.agent;
  return (
    isRecord(agent) &&
    isRecord(agent.theme) &&
    isRecord(agent.features) &&
    Array.isArray(agent.behavior_rules) &&
    Array.isArray(value.messages)
  );
}

/** Whether a value is a list of citations. */
export function isCitations(value: unknown): value is TCitation[] {
  return Array.isArray(value) && value.every((c) => isRecord(c) && typeof c.id === 'number');
}

/** Whether a value is a list of messages. */
export function isMessages(value: unknown): value is TMessage[] {
  return (
    Array.isArray(value) &&
    value.every(
      (m) =>
        isRecord(m) &&
        typeof m.id === 'string' &&
        typeof m.content === 'string' &&
        isCitations(m.citations) &&
        Array.isArray(m.blocks),
    )
  );
}
