import { z } from 'zod';
import { ZAbility } from './abilities.js';
import { zText } from './text.js';

/** Body of `POST /api/v1/admin/tokens`. */
export const ZApiTokenCreate = z.strictObject({
  name: zText().trim().min(1).max(100),
  abilities: z
    .array(ZAbility)
    .min(1)
    .max(10)
    .transform((abilities) => [...new Set(abilities)]),
});
export type TApiTokenCreate = z.infer<typeof ZApiTokenCreate>;

/** An API token as listed: never the plaintext, never the hash. */
export const ZApiToken = z.object({
  id: zText(),
  name: zText(),
  abilities: z.array(zText()),
  token_prefix: zText().describe('The first characters of the plaintext, to recognise a token.'),
  last_used_at: zText().nullable(),
  revoked_at: zText().nullable(),
  created_at: zText(),
});
export type TApiToken = z.infer<typeof ZApiToken>;

/** The answer to token creation: the only time the plaintext is shown. */
export const ZApiTokenCreated = ZApiToken.extend({
  token: zText(),
  shopper_signing_secret: zText(),
});
export type TApiTokenCreated = z.infer<typeof ZApiTokenCreated>;
