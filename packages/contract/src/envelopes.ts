import { z } from 'zod';

/** The service error envelope: `{message, code, errors}` (Laravel style). */
export const ZServiceError = z.object({
  message: z.string(),
  code: z.string(),
  errors: z.record(z.string(), z.array(z.string())),
});
export type TServiceError = z.infer<typeof ZServiceError>;

/** The site plugin error envelope: `{error: {code, message}}`. */
export const ZPluginError = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
});
export type TPluginError = z.infer<typeof ZPluginError>;

/** Wraps a success payload the way every service route answers: `{data: …}`. */
export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}
