import { z } from 'zod';
import { ZTheme, ZWelcomeContent } from './agent.js';
import { zStorableJson, zText } from './text.js';
import { BEHAVIOR_TRIGGERS } from './widget-settings.js';

/** Widget tokens live this long (contract: 60 min). */
export const WIDGET_TOKEN_TTL_SECONDS = 3600;
/** The fixed `iss` claim of every widget token. */
export const WIDGET_TOKEN_ISSUER = 'chat-agent-service/widget';
/** How far back init resumes history (contract: 24 hours). */
export const WIDGET_HISTORY_HOURS = 24;
/** Longest visitor message, in characters. */
export const WIDGET_MESSAGE_MAX = 4000;

/** Longest page fields a token carries for a conversation not stored yet (they travel in a header). */
export const WIDGET_PENDING_PAGE_URL_MAX = 1024;
/** Longest page title a token carries for a conversation not stored yet. */
export const WIDGET_PENDING_PAGE_TITLE_MAX = 200;

/**
 * What storing a conversation needs, signed into the token of a visitor whose conversation
 * is not stored yet (init writes nothing; the first write of the token stores it).
 */
export const ZWidgetPendingConversation = z.object({
  anon_id: zText().regex(/^[A-Za-z0-9_-]{8,64}$/),
  locale: zText().max(35).nullable(),
  page_url: zText().max(WIDGET_PENDING_PAGE_URL_MAX).nullable(),
  page_title: zText().max(WIDGET_PENDING_PAGE_TITLE_MAX).nullable(),
  referrer: zText().max(WIDGET_PENDING_PAGE_URL_MAX).nullable(),
  /** The shopper, only when the site's shopper token verified at init; `verified_at` in Unix seconds. */
  shopper: z
    .object({
      wp_user_id: z.number().int().positive(),
      email_hash: zText().regex(/^[0-9a-f]{64}$/),
      verified_at: z.number().int().positive(),
    })
    .nullable(),
});
export type TWidgetPendingConversation = z.infer<typeof ZWidgetPendingConversation>;

/** Verified claims of a widget token (`exp`/`iat`/`iss` are checked by the verifier). */
export const ZWidgetTokenClaims = z.object({
  agent_id: zText().min(1).max(64),
  visitor_id: zText().min(1).max(64),
  conversation_id: zText().min(1).max(64),
  /** Present while the conversation is not stored yet. */
  pending: ZWidgetPendingConversation.optional(),
});
export type TWidgetTokenClaims = z.infer<typeof ZWidgetTokenClaims>;

const ZOptionalText = (max: number) => zText().max(max).optional();

/** Body of `POST /v1/widget/init` (ARCHITECTURE.md, "Widget wire"). */
export const ZWidgetInitRequest = z.object({
  agent_id: zText().min(1).max(64),
  /** The browser's random id, kept in localStorage. */
  anon_id: zText().regex(/^[A-Za-z0-9_-]{8,64}$/, 'Must be 8–64 letters, digits, - or _.'),
  page_url: ZOptionalText(2048),
  page_title: ZOptionalText(500),
  referrer: ZOptionalText(2048),
  locale: ZOptionalText(35),
  shopper_token: ZOptionalText(2048),
});
export type TWidgetInitRequest = z.infer<typeof ZWidgetInitRequest>;

/** A citation: `[N]` in an answer's text refers to the source with `id` N. */
export const ZCitation = z.object({
  id: z.number().int().min(1),
  url: zText().nullable(),
  title: zText(),
});
export type TCitation = z.infer<typeof ZCitation>;

/** Block types the stream may carry. */
export const BLOCK_TYPES = ['product', 'coupon', 'suggestions', 'escalation'] as const;
/** A chat block: a product card, a coupon card, suggestion chips or the escalation button. */
export const ZBlock = z.object({ type: z.enum(BLOCK_TYPES), payload: z.record(zText(), zStorableJson()) });
export type TBlock = z.infer<typeof ZBlock>;

/** One message of a conversation as the widget sees it. */
export const ZWidgetMessage = z.object({
  id: zText(),
  role: z.enum(['visitor', 'assistant', 'operator', 'system']),
  content: zText(),
  citations: z.array(ZCitation),
  blocks: z.array(ZBlock),
  created_at: zText(),
  /** True on an answer given verbatim from the team's saved correction. */
  from_team: z.boolean().optional(),
});
export type TWidgetMessage = z.infer<typeof ZWidgetMessage>;

/** `data` of the init answer. */
export const ZWidgetInitResponse = z.object({
  token: zText(),
  expires_at: zText(),
  conversation_id: zText(),
  visitor_id: zText(),
  /** `open`, `waiting` (a human was asked for) or `claimed` (an operator is answering). */
  conversation_status: z.enum(['open', 'waiting', 'claimed', 'closed']),
  agent: z.object({
    id: zText(),
    name: zText(),
    language_default: zText().nullable(),
    site_type: z.enum(['generic', 'ecommerce']),
    /** The theme plus readable text colours: `on_primary` on the primary colour, `primary_text` (the primary
     * darkened when needed) for links and chips on white; both meet WCAG AA (4.5:1). */
    theme: ZTheme.extend({ on_primary: zText().optional(), primary_text: zText().optional() }),
    /** The greeting and starter questions, in the visitor's language where given (absent: none). */
    welcome: ZWelcomeContent.optional(),
    features: z.object({
      coupons: z.boolean(),
      leads: z.boolean(),
      human: z.boolean(),
      satisfaction: z.boolean(),
    }),
    behavior_rules: z.array(
      z.object({
        trigger: z.enum(BEHAVIOR_TRIGGERS),
        threshold: z.number().int().optional(),
        action: z.enum(['open', 'message']),
        message: zText().optional(),
      }),
    ),
  }),
  /** The UI language: the request's `locale`, else the agent's default, else Accept-Language, else `en`. */
  language: zText(),
  shopper_verified: z.boolean(),
  messages: z.array(ZWidgetMessage),
});
export type TWidgetInitResponse = z.infer<typeof ZWidgetInitResponse>;

/** Body of `POST /v1/widget/messages` and `/messages/stream`. */
export const ZWidgetMessageRequest = z.strictObject({
  message: zText().trim().min(1).max(WIDGET_MESSAGE_MAX),
});

/** The answer of `POST /v1/widget/messages` (the stream's frames folded into one body). */
export const ZWidgetAnswer = z.object({
  conversation_id: zText(),
  /** Null when no answer was given (an operator holds the conversation). */
  message_id: zText().nullable(),
  text: zText(),
  citations: z.array(ZCitation),
  blocks: z.array(ZBlock),
  /** True when the answer is an operator's saved correction, given verbatim (offline). */
  from_team: z.boolean().optional(),
  /** True when the workspace reached its plan's monthly message limit: the text says so politely and nothing was stored. */
  limit_reached: z.boolean().optional(),
});
export type TWidgetAnswer = z.infer<typeof ZWidgetAnswer>;

/** The SSE frames of `/v1/widget/messages/stream`, in order: start, token…, block…, done | error. */
export type TStreamFrame =
  | { event: 'start'; data: { conversation_id: string; message_id: string } }
  | { event: 'token'; data: { t: string } }
  | { event: 'block'; data: TBlock }
  | {
      event: 'done';
      /** `message_id` null and `held_by_operator` true: an operator holds the conversation; the bot stays silent. */
      /** `from_team` true: the answer is an operator's saved correction, given verbatim. */
      /** `limit_reached` true: the workspace is at its plan's monthly message limit; `text` says so, nothing was stored. */
      data: {
        message_id: string | null;
        text: string;
        citations: TCitation[];
        held_by_operator?: boolean;
        from_team?: boolean;
        limit_reached?: boolean;
      };
    }
  | { event: 'error'; data: { code: string; message: string } };

/** Body of `POST /v1/widget/leads`. */
export const ZLeadCreate = z.strictObject({
  email: zText().trim().pipe(z.email('Must be a valid email address.').max(254)),
  name: zText().trim().max(200).default(''),
  phone: zText()

    .trim()
    .max(40)
    .regex(/^[+()0-9 .-]*$/, 'Must be a phone number (digits, spaces, + - . ( )).')
    .default(''),
});
export type TLeadCreate = z.infer<typeof ZLeadCreate>;

/** Behaviour event kinds `/v1/widget/events` accepts; anything else is a 422. */
export const WIDGET_EVENT_KINDS = [
  'widget_opened',
  'widget_closed',
  'trigger_fired',
  'suggestion_clicked',
  'citation_clicked',
  'product_clicked',
  'coupon_copied',
  'page_view',
] as const;

/** Body of `POST /v1/widget/events`: a kind and a small flat map of details. */
export const ZWidgetEvent = z.strictObject({
  kind: z.enum(WIDGET_EVENT_KINDS),
  data: z
    .record(zText().max(40), z.union([zText().max(500), z.number(), z.boolean(), z.null()]))
    .refine((data) => Object.keys(data).length <= 20, 'At most 20 details.')
    .default({}),
});

/** Body of `POST /v1/widget/typing`. */
export const ZWidgetTyping = z.strictObject({ typing: z.boolean() });

/** Body of `POST /v1/widget/satisfaction`: the first rating sticks, the comment can be updated. */
export const ZSatisfaction = z.strictObject({
  rating: z.enum(['up', 'down']),
  comment: zText().trim().max(1000).optional(),
  /** The answer rated (an assistant message of the conversation); absent: the last answer. */
  message_id: zText().min(1).max(64).optional(),
});

/** Body of `POST /api/v1/widget/coupon/apply`. */
export const ZCouponApplyRequest = z.strictObject({ code: zText().trim().min(1).max(100) });

/** Answer of coupon/apply, relayed from the site. */
export const ZCouponApplyResult = z.object({
  applied: z.boolean(),
  pending: z.boolean(),
  message: zText(),
});
export type TCouponApplyResult = z.infer<typeof ZCouponApplyResult>;

/** Answer of `conversation/clear`: a new conversation and its token. */
export const ZConversationCleared = z.object({
  token: zText(),
  expires_at: zText(),
  conversation_id: zText(),
});

/** The claims a site signs into a `shopper_token` (a compact HS256 JWS keyed by `shopper_signing_secret`). */
export const ZShopperClaims = z.object({
  wp_user_id: z.number().int().positive(),
  email_hash: zText().regex(/^[0-9a-f]{64}$/, 'Must be the SHA-256 hex of the lower-cased email.'),
  iat: z.number().int().positive(),
});
export type TShopperClaims = z.infer<typeof ZShopperClaims>;

/** A shopper token older than this (or issued further in the future than the skew) is ignored. */
export const SHOPPER_TOKEN_MAX_AGE_SECONDS = 900;
/** Clock difference tolerated between the site and the service. */
export const SHOPPER_TOKEN_CLOCK_SKEW_SECONDS = 60;
