import { z } from 'zod';
import { ZCorrectionMatch } from './quality.js';
import { ZSearchHit } from './search.js';
import { zText } from './text.js';
import { WIDGET_MESSAGE_MAX, ZBlock, ZCitation } from './widget.js';

/** Earlier turns a playground question may carry (visitor and assistant messages, oldest first). */
export const PLAYGROUND_HISTORY_MAX = 12;

/** One earlier turn of a playground conversation, as the console kept it. */
export const ZPlaygroundTurn = z.strictObject({
  role: z.enum(['visitor', 'assistant']),
  content: zText().trim().min(1).max(WIDGET_MESSAGE_MAX),
});
export type TPlaygroundTurn = z.infer<typeof ZPlaygroundTurn>;

/**
 * Body of `POST /api/v1/admin/agents/{id}/playground`: a question as a visitor would ask it,
 * with the turns before it (the console keeps them; nothing is stored by the service).
 */
export const ZPlaygroundRequest = z.strictObject({
  question: zText().trim().min(1).max(WIDGET_MESSAGE_MAX).describe('What a visitor would ask'),
  history: z
    .array(ZPlaygroundTurn)
    .max(PLAYGROUND_HISTORY_MAX)
    .default([])
    .describe(`Earlier turns, oldest first (at most ${PLAYGROUND_HISTORY_MAX})`),
});
export type TPlaygroundRequest = z.input<typeof ZPlaygroundRequest>;

/**
 * A chunk the answer was grounded on: the search route's hit (title, url, chunk text in
 * `content`, fused `score`, per-retriever `ranks`) and `id`, the N an answer's `[N]` cites.
 */
export const ZPlaygroundChunk = ZSearchHit.extend({
  id: z.number().int().min(1).describe('The source number: [N] in the answer cites the chunk with id N'),
});
export type TPlaygroundChunk = z.infer<typeof ZPlaygroundChunk>;

/** The retrieval trace: every chunk the answer was given, in fused order (best first). */
export const ZPlaygroundTrace = z.object({
  chunks: z.array(ZPlaygroundChunk),
  /** The operator's correction that answers the question instead (or first, with a model). */
  correction: ZCorrectionMatch.nullable().optional(),
});
export type TPlaygroundTrace = z.infer<typeof ZPlaygroundTrace>;

/**
 * The SSE frames of the playground stream, in order: `start`, `trace` (what retrieval found),
 * `token`…, `block`…, then `done` or `error`. The widget's frames, with no conversation (nothing
 * is stored) and the trace added.
 */
export const ZPlaygroundFrame = z.discriminatedUnion('event', [
  z.object({ event: z.literal('start'), data: z.object({ message_id: zText() }) }),
  z.object({ event: z.literal('trace'), data: ZPlaygroundTrace }),
  z.object({ event: z.literal('token'), data: z.object({ t: zText() }) }),
  z.object({ event: z.literal('block'), data: ZBlock }),
  z.object({
    event: z.literal('done'),
    data: z.object({
      message_id: zText().nullable(),
      text: zText(),
      citations: z.array(ZCitation),
      from_team: z.boolean().optional().describe("true: the answer is an operator's correction, verbatim"),
    }),
  }),
  z.object({ event: z.literal('error'), data: z.object({ code: zText(), message: zText() }) }),
]);
export type TPlaygroundFrame = z.infer<typeof ZPlaygroundFrame>;
