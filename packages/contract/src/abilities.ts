import { z } from 'zod';

/** Abilities an API token can carry. `admin` opens the admin API; `wp:integration` the site routes. */
export const ABILITIES = ['admin', 'wp:integration'] as const;
export const ZAbility = z.enum(ABILITIES);
export type TAbility = z.infer<typeof ZAbility>;

/** The fixed prefix of every plaintext API token. */
export const API_TOKEN_PREFIX = 'svc_';
