import { z } from 'zod';
import { ZAbility } from './abilities.js';

/** Body of `POST /api/v1/admin/tokens`. */
export const ZApiTokenCreate = z.strictObject({
  name: z.string().trim().min(1).max(100),
  abilities: z
    .array(ZAbility)
    .min(1)
    .max(10)
    .transform((abilities) => [...new Set(abilities)]),
});
export type TApiTokenCreate = z.infer<typeof ZApiTokenCreate>;

/** An API token as listed: never the plaintext, never the hash. */
export const ZApiToken = z.object({
  id: z.string(),
  name: z.string(),
  abilities: z.array(z.string()),
  token_prefix: z.string().describe('The first characters of the plaintext, to recognise a token.'),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
});
export type TApiToken = z.infer<typeof ZApiToken>;

/** The answer to token creation: the only time the plaintext is shown. */
export const ZApiTokenCreated = ZApiToken.extend({
  token: z.string(),
  shopper_signing_secret: z.string(),
});
export type TApiTokenCreated = z.infer<typeof ZApiTokenCreated>;
