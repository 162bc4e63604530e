import { z } from 'zod';
import { zText } from './text.js';

/** Model APIs a workspace can bring its own key for. */
export const LLM_KEY_PROVIDERS = ['openai', 'anthropic'] as const;
/** `openai` or `anthropic`. */
export const ZLlmKeyProvider = z.enum(LLM_KEY_PROVIDERS);
/** `openai` or `anthropic`. */
export type TLlmKeyProvider = z.infer<typeof ZLlmKeyProvider>;

/**
 * Body of `PUT /api/v1/admin/llm-key`: the workspace's own model key (BYOK). There is no base
 * URL field on purpose: a tenant never chooses where the service connects (SSRF).
 */
export const ZLlmKeyPut = z.strictObject({
  provider: ZLlmKeyProvider,
  api_key: zText()

    .trim()
    .min(8)
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'The api_key must be printable ASCII without spaces.'),
  model: zText()

    .trim()
    .min(1)
    .max(120)
    .regex(/^[\w.:/@-]+$/, 'The model may hold letters, digits and . _ : / @ - only.')
    .nullable()
    .optional(),
});
/** Body of `PUT /api/v1/admin/llm-key`. */
export type TLlmKeyPut = z.infer<typeof ZLlmKeyPut>;

/** The workspace's model key as shown: never the key, only its last four characters. */
export const ZLlmKey = z.object({
  provider: ZLlmKeyProvider,
  model: zText().nullable(),
  key_last4: zText()

    .nullable()
    .describe(
      'Last four characters of the key; null when APP_KEY changed and the key must be entered again.',
    ),
  active: z.boolean().describe("Whether answers use this key: the workspace owner's byok_enabled flag."),
  updated_at: zText(),
});
/** The workspace's model key as shown. */
export type TLlmKey = z.infer<typeof ZLlmKey>;
