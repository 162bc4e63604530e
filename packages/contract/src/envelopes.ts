import { z } from 'zod';
import { zText } from './text.js';

/** The service error envelope: `{message, code, errors}` (Laravel style). */
export const ZServiceError = z.object({
  message: zText(),
  code: zText(),
  errors: z.record(zText(), z.array(zText())),
});
export type TServiceError = z.infer<typeof ZServiceError>;

/** The site plugin error envelope: `{error: {code, message}}`. */
export const ZPluginError = z.object({
  error: z.object({ code: zText(), message: zText() }),
});
export type TPluginError = z.infer<typeof ZPluginError>;

/** Wraps a success payload the way every service route answers: `{data: …}`. */
export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}
