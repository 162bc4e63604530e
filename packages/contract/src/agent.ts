import { z } from 'zod';
import { normalizeAllowedOrigin } from './origin.js';
import { storable, zText } from './text.js';
import { ZBehaviorRules, ZWidgetFeatureSettings } from './widget-settings.js';

/** Site types an agent can have; `ecommerce` turns on product and coupon features. */
export const SITE_TYPES = ['generic', 'ecommerce'] as const;
export const ZSiteType = z.enum(SITE_TYPES);

/** Where the widget launcher sits. */
export const LAUNCHER_POSITIONS = ['bottom-right', 'bottom-left'] as const;

const ZColor = zText().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Must be a hex colour such as #1a73e8.');

/** The widget theme of an agent; every field is returned by widget init. */
export const ZTheme = z.object({
  position: z.enum(LAUNCHER_POSITIONS),
  primary: ZColor,
  accent: ZColor,
  radius: z.number().int().min(0).max(32),
  launcher_label: zText().trim().min(1).max(40),
});
export type TTheme = z.infer<typeof ZTheme>;

/** The theme a new agent starts with. */
export const DEFAULT_THEME: TTheme = Object.freeze({
  position: 'bottom-right',
  primary: '#1f6feb',
  accent: '#f5a623',
  radius: 12,
  launcher_label: 'Chat with us',
});

/** Most starter questions the widget offers on a new conversation. */
export const WELCOME_STARTERS_MAX = 4;
/** Most languages an agent's welcome is translated into. */
export const WELCOME_TRANSLATIONS_MAX = 30;

const ZWelcomeText = {
  /** Said first when the panel opens on a new conversation; '' says nothing. */
  greeting: zText().trim().max(300, 'The greeting must be at most 300 characters.'),
  /** Questions the visitor can ask with one click. */
  starters: z
    .array(zText().trim().min(1, 'A starter question cannot be empty.').max(120))
    .max(WELCOME_STARTERS_MAX, `At most ${WELCOME_STARTERS_MAX} starter questions.`),
};

/** The welcome of a new conversation in one language. */
export const ZWelcomeContent = z.strictObject(ZWelcomeText);
export type TWelcomeContent = z.infer<typeof ZWelcomeContent>;

/**
 * An agent's welcome: a greeting and up to four starter questions, plus translations keyed by
 * language tag (`de`, `pt-br`); a visitor gets the translation of their language (or of its
 * base language), else the default text.
 */
export const ZWelcome = z.strictObject({
  ...ZWelcomeText,
  translations: z
    .record(
      zText().regex(
        /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/,
        'Must be a lower-case language tag such as de or pt-br.',
      ),
      ZWelcomeContent.partial(),
    )
    .refine((map) => Object.keys(map).length <= WELCOME_TRANSLATIONS_MAX, {
      message: `At most ${WELCOME_TRANSLATIONS_MAX} translations.`,
    })
    .default({}),
});
export type TWelcome = z.infer<typeof ZWelcome>;

/** A BCP 47-style language tag, stored lower case (`en`, `pt-br`). */
export const ZLanguageTag = zText()

  .trim()
  .regex(/^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8})*$/, 'Must be a language tag such as en or pt-BR.')
  .transform((tag) => tag.toLowerCase());

/** The `allowed_origins` list: exact origins or `*`, normalised and de-duplicated. */
export const ZAllowedOrigins = z
  .array(zText().max(300))
  .max(50)
  .transform((entries, ctx) => {
    const out: string[] = [];
    entries.forEach((entry, index) => {
      const normalized = normalizeAllowedOrigin(entry);
      if (normalized === null) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: 'Must be * or an origin such as https://shop.example.com (no path).',
        });
      } else if (!out.includes(normalized)) {
        out.push(normalized);
      }
    });
    return out;
  });

const agentWritable = {
  name: zText().trim().min(1, 'Name the agent.').max(120, 'The name must be at most 120 characters.'),
  site_type: ZSiteType,
  language_default: ZLanguageTag.nullable(),
  is_published: z.boolean(),
  allowed_origins: ZAllowedOrigins,
  theme: ZTheme.partial().strict(),
  system_prompt: zText().max(8000),
  behavior_rules: ZBehaviorRules,
  auto_index_pages: z.boolean(),
  widget_features: ZWidgetFeatureSettings.partial(),
  /** null goes back to the defaults for the agent's site type. */
  welcome: ZWelcome.nullable(),
};

/** Body of `POST /api/v1/admin/agents`. Unknown fields are rejected. */
export const ZAgentCreate = z.strictObject({
  ...agentWritable,
  site_type: agentWritable.site_type.optional(),
  language_default: agentWritable.language_default.optional(),
  is_published: agentWritable.is_published.optional(),
  allowed_origins: agentWritable.allowed_origins.optional(),
  theme: agentWritable.theme.optional(),
  system_prompt: agentWritable.system_prompt.optional(),
  behavior_rules: agentWritable.behavior_rules.optional(),
  auto_index_pages: agentWritable.auto_index_pages.optional(),
  widget_features: agentWritable.widget_features.optional(),
  welcome: agentWritable.welcome.optional(),
});
export type TAgentCreate = z.infer<typeof ZAgentCreate>;

/** Body of `PATCH /api/v1/admin/agents/{id}`; a partial theme is merged into the stored one. */
export const ZAgentUpdate = ZAgentCreate.partial();
export type TAgentUpdate = z.infer<typeof ZAgentUpdate>;

/** An agent as the admin API returns it. */
export const ZAgent = z.object({
  id: zText(),
  name: zText(),
  site_type: ZSiteType,
  language_default: zText().nullable(),
  is_published: z.boolean(),
  allowed_origins: z.array(zText()),
  theme: ZTheme,
  system_prompt: zText(),
  behavior_rules: ZBehaviorRules.describe(
    'Proactive triggers the widget registers (each fires once per page view)',
  ),
  auto_index_pages: z
    .boolean()
    .describe('Index the pages visitors chat from (explicitly allowed origins only)'),
  widget_features: ZWidgetFeatureSettings,
  welcome: ZWelcome.describe(
    'Greeting and starter questions of a new conversation (the defaults for the site type until set)',
  ),
  created_at: zText(),
  updated_at: zText(),
});
export type TAgent = z.infer<typeof ZAgent>;

/** `GET /api/v1/admin/agents/{id}/embed`: the one script tag a site owner pastes. */
export const ZAgentEmbed = z.object({
  agent_id: zText(),
  script_url: zText().describe(
    '/widget/widget.js?v=<build hash>: a stable path, the query only busts caches',
  ),
  snippet: zText().describe('The one script tag to paste before </body>'),
  is_published: z.boolean(),
  allowed_origins: z.array(zText()),
});
export type TAgentEmbed = z.infer<typeof ZAgentEmbed>;

/** How much an agent knows, counted for the agents list. */
export const ZAgentKnowledge = z.object({
  source_count: z.number().int().min(0),
  failed_source_count: z.number().int().min(0).describe('Sources whose status is failed'),
  document_count: z.number().int().min(0),
  chunk_count: z.number().int().min(0).describe('Indexed passages the agent retrieves from'),
});
export type TAgentKnowledge = z.infer<typeof ZAgentKnowledge>;

/** An agent in `GET /api/v1/admin/agents`: the agent, its knowledge size and its last answer. */
export const ZAgentListItem = ZAgent.extend({
  knowledge: ZAgentKnowledge,
  last_answer_at: zText()
    .nullable()
    .describe('When the agent last answered a visitor (any outcome); null if never'),
});
export type TAgentListItem = z.infer<typeof ZAgentListItem>;

/** Body of `POST /api/v1/admin/agents/{id}/theme/from-site`: the page to read (default: the agent's first allowed origin). */
export const ZSiteThemeRequest = z.strictObject({
  url: storable(z.url({ protocol: /^https?$/, message: 'Must be an http(s) URL.' }).max(2048)).optional(),
});

/** A theme suggested from a site's `meta[name=theme-color]`, checked for contrast; nothing is saved. */
export const ZSiteTheme = z.object({
  source_url: zText().describe('The page the colour was read from'),
  site_color: zText().describe("The page's theme colour as #rrggbb"),
  primary: zText().describe('The suggested primary colour (the site colour; PATCH it into theme.primary)'),
  on_primary: zText().describe(
    'Text colour on the primary colour: white, near-black or black, whichever reaches WCAG AA',
  ),
  contrast: z.number().describe('Contrast ratio of on_primary on primary (at least 4.5)'),
  primary_text: zText().describe('The primary colour as text on white, darkened until it reaches 4.5:1'),
  is_adjusted: z.boolean().describe('True when primary_text had to be darkened'),
});
export type TSiteTheme = z.infer<typeof ZSiteTheme>;
