import {
  type BEHAVIOR_TRIGGERS,
  type LAUNCHER_POSITIONS,
  normalizeAllowedOrigin,
  type TAgent,
  type TBehaviorRule,
  ZAgentUpdate,
} from '@service/contract';
import { fieldErrorsOf } from '../api.js';

// The settings form's state: the agent as edited (strings where the owner types), turned into
// the PATCH body the contract's ZAgentUpdate checks, with its errors keyed as the service keys
// them (`theme.primary`, `allowed_origins.2`, `behavior_rules.0.threshold`).

/** A behaviour rule being edited (`key` keeps its row while others are added or removed). */
export type RuleDraft = {
  key: number;
  trigger: (typeof BEHAVIOR_TRIGGERS)[number];
  threshold: string;
  action: TBehaviorRule['action'];
  message: string;
};

/** The agent as the form holds it. */
export type Draft = {
  name: string;
  systemPrompt: string;
  languageDefault: string;
  isPublished: boolean;
  autoIndexPages: boolean;
  /** One allowed origin per line. */
  origins: string;
  features: TAgent['widget_features'];
  rules: RuleDraft[];
  theme: {
    position: (typeof LAUNCHER_POSITIONS)[number];
    primary: string;
    accent: string;
    radius: string;
    launcherLabel: string;
  };
  welcome: {
    greeting: string;
    /** One starter question per line. */
    starters: string;
    /** Kept as stored: the console edits the default text, the admin API the translations. */
    translations: TAgent['welcome']['translations'];
  };
};

/** The most behaviour rules an agent may have (the contract's ZBehaviorRules). */
export const MAX_RULES = 10;

let nextKey = 0;
/** A fresh key for a rule row. */
export const ruleKey = (): number => {
  nextKey += 1;
  return nextKey;
};

/** The form's state for a stored agent. */
export function draftOf(agent: TAgent): Draft {
  return {
    name: agent.name,
    systemPrompt: agent.system_prompt,
    languageDefault: agent.language_default ?? '',
    isPublished: agent.is_published,
    autoIndexPages: agent.auto_index_pages,
    origins: agent.allowed_origins.join('\n'),
    features: { ...agent.widget_features },
    rules: agent.behavior_rules.map((rule) => ({
      key: ruleKey(),
      trigger: rule.trigger,
      threshold: rule.threshold === undefined ? '' : String(rule.threshold),
      action: rule.action,
      message: rule.message ?? '',
    })),
    theme: {
      position: agent.theme.position,
      primary: agent.theme.primary,
      accent: agent.theme.accent,
      radius: String(agent.theme.radius),
      launcherLabel: agent.theme.launcher_label,
    },
    welcome: {
      greeting: agent.welcome.greeting,
      starters: agent.welcome.starters.join('\n'),
      translations: agent.welcome.translations,
    },
  };
}

/** The origin lines that hold something, with their 1-based line numbers. */
export function originLines(text: string): Array<{ line: number; value: string }> {
  return text
    .split('\n')
    .map((value, index) => ({ line: index + 1, value: value.trim() }))
    .filter((entry) => entry.value !== '');
}

/** A whole number typed in a field, or undefined (so the contract names what is missing). */
function wholeNumber(typed: string): number | undefined {
  return /^\s*\d+\s*$/.test(typed) ? Number(typed) : undefined;
}

/** The PATCH body for the draft (every editable field: a save sends the whole form). */
export function bodyOf(draft: Draft) {
  return {
    name: draft.name,
    system_prompt: draft.systemPrompt,
    language_default: draft.languageDefault.trim() === '' ? null : draft.languageDefault,
    is_published: draft.isPublished,
    auto_index_pages: draft.autoIndexPages,
    allowed_origins: originLines(draft.origins).map((entry) => entry.value),
    widget_features: { ...draft.features },
    behavior_rules: draft.rules.map((rule) => ({
      trigger: rule.trigger,
      ...(rule.trigger === 'exit_intent' ? {} : { threshold: wholeNumber(rule.threshold) }),
      action: rule.action,
      ...(rule.action === 'message' ? { message: rule.message.trim() || undefined } : {}),
    })),
    theme: {
      position: draft.theme.position,
      primary: draft.theme.primary.trim(),
      accent: draft.theme.accent.trim(),
      radius: wholeNumber(draft.theme.radius) ?? Number.NaN,
      launcher_label: draft.theme.launcherLabel,
    },
    welcome: {
      greeting: draft.welcome.greeting,
      starters: originLines(draft.welcome.starters).map((entry) => entry.value),
      translations: draft.welcome.translations,
    },
  };
}

/** Whether the draft differs from the stored agent (what a save would change). */
export function isDirty(draft: Draft, saved: TAgent): boolean {
  return JSON.stringify(bodyOf(draft)) !== JSON.stringify(bodyOf(draftOf(saved)));
}

/**
 * The PATCH body of what changed only (whole fields: the theme, the rules and the features go
 * as a whole when any part changed), so the agent's audit record names the fields edited.
 */
export function changesOf(draft: Draft, saved: TAgent): Partial<ReturnType<typeof bodyOf>> {
  const next = bodyOf(draft);
  const before = bodyOf(draftOf(saved));
  const changed: Partial<ReturnType<typeof bodyOf>> = {};
  for (const key of Object.keys(next) as Array<keyof typeof next>) {
    if (JSON.stringify(next[key]) !== JSON.stringify(before[key]))
      Object.assign(changed, { [key]: next[key] });
  }
  return changed;
}

const FRIENDLY: Record<string, string> = {
  'theme.radius': 'Enter a whole number from 0 to 32.',
  'theme.launcher_label': 'Enter 1 to 40 characters.',
  'welcome.starters': 'Enter at most 4 questions, one per line.',
};

/** The draft's field errors by the contract's schema (empty when it can be sent). */
export function draftErrors(draft: Draft): Record<string, string[]> {
  const parsed = ZAgentUpdate.safeParse(bodyOf(draft));
  if (parsed.success) return {};
  const errors = fieldErrorsOf(parsed.error);
  for (const [key, text] of Object.entries(FRIENDLY)) if (errors[key]) errors[key] = [text];
  for (const key of Object.keys(errors)) {
    // A threshold that is not a whole number reaches the schema as missing: say what to type.
    if (
      /^behavior_rules\.\d+\.threshold$/.test(key) &&
      errors[key]?.some((m: string) => /expected number/.test(m))
    ) {
      errors[key] = ['Enter a whole number.'];
    }
  }
  return errors;
}

/** Each origin line the contract's parser refuses, by its position in the sent list. */
export function originErrors(text: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  originLines(text).forEach((entry, index) => {
    if (normalizeAllowedOrigin(entry.value) === null) {
      errors[`allowed_origins.${index}`] = [
        `Line ${entry.line}: “${entry.value}” is not an origin. Use * or scheme://host[:port], such as https://shop.example.com (no path).`,
      ];
    }
  });
  return errors;
}

/** Whether the origin lines allow every site (`*`). */
export function allowsAnySite(text: string): boolean {
  return originLines(text).some((entry) => entry.value === '*');
}
