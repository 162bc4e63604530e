import { z } from 'zod';
import { zText } from './text.js';

/** What a behaviour rule watches: scroll depth (%), idle time (s), exit intent, time on page (s). */
export const BEHAVIOR_TRIGGERS = ['scroll', 'idle', 'exit_intent', 'time_on_page'] as const;

/** One proactive trigger of an agent; it fires at most once per page view. */
export const ZBehaviorRule = z
  .strictObject({
    trigger: z.enum(BEHAVIOR_TRIGGERS),
    /** Scroll: percent of the page (1–100); idle and time_on_page: seconds (1–3600); exit_intent: none. */
    threshold: z.number().int().min(1).max(3600).optional(),
    /** `open` opens the panel; `message` shows `message` as a bubble by the launcher. */
    action: z.enum(['open', 'message']).default('message'),
    message: zText().trim().min(1).max(500).optional(),
  })
  .superRefine((rule, ctx) => {
    // Every trigger but exit intent has a threshold; a message rule of any trigger needs its message.
    if (rule.trigger !== 'exit_intent' && rule.threshold === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['threshold'],
        message: `A ${rule.trigger} rule needs a threshold.`,
      });
    } else if (rule.trigger === 'scroll' && (rule.threshold ?? 0) > 100) {
      ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'Scroll depth is a percentage (1–100).' });
    }
    if (rule.action === 'message' && rule.message === undefined) {
      ctx.addIssue({ code: 'custom', path: ['message'], message: 'A message rule needs a message.' });
    }
  });
export type TBehaviorRule = z.infer<typeof ZBehaviorRule>;

/** The agent's list of triggers (at most 10). */
export const ZBehaviorRules = z.array(ZBehaviorRule).max(10);

/** Widget features an agent turns on or off (coupons follow the site, not a setting). */
export const ZWidgetFeatureSettings = z.strictObject({
  leads: z.boolean(),
  human: z.boolean(),
  satisfaction: z.boolean(),
});
export type TWidgetFeatureSettings = z.infer<typeof ZWidgetFeatureSettings>;
