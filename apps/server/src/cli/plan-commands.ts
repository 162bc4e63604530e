import { z } from 'zod';
import { validationErrorFromZod } from '../errors/app-error.js';
import { assignPlan, getWorkspacePlan, listPlans, setPlan } from '../services/billing/plans.js';
import type { CommandContext } from './commands.js';

// A limit on the command line: a whole number, or `none` to remove the limit.
const zLimit = (max: number) =>
  z
    .string()
    .trim()
    .regex(/^(?:\d+|none)$/, 'Must be a whole number, or none for no limit.')
    .transform((value) => (value === 'none' ? null : Number(value)))
    .refine((value) => value === null || value <= max, `Must be at most ${max}.`);

const zIds = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  )
  .pipe(
    z
      .array(
        z
          .string()
          .max(255)
          .regex(/^[\w.:-]+$/, 'A price id has letters, digits, _ . : - only.'),
      )
      .max(50),
  );

const ZPlanSetArgs = z.strictObject({
  key: z
    .string()
    .regex(
      /^[a-z0-9][a-z0-9_-]{0,39}$/,
      'A plan key is 1-40 lower-case letters, digits, _ or -, starting with a letter or digit.',
    ),
  name: z.string().trim().min(1).max(100).optional(),
  agents: zLimit(1_000_000).optional(),
  messages: zLimit(2_000_000_000).optional(),
  sources: zLimit(1_000_000).optional(),
  'upload-mb': zLimit(100_000_000).optional(),
  'stripe-prices': zIds.optional(),
  'paypal-plans': zIds.optional(),
  'paddle-prices': zIds.optional(),
});

const ZPlanAssignArgs = z.strictObject({ workspace: z.string().min(1), plan: z.string().min(1) });
const ZUsageArgs = z.strictObject({ workspace: z.string().min(1) });

/** The operator's plan commands: `plan:set`, `plan:list`, `plan:assign`, `usage` (see the CLI usage). */
export const PLAN_COMMANDS = {
  async 'plan:set'(ctx: CommandContext, args: Record<string, unknown>) {
    const parsed = ZPlanSetArgs.safeParse(args);
    if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
    const a = parsed.data;
    const megabytes = a['upload-mb'];
    return setPlan(ctx.database.db, {
      key: a.key,
      name: a.name,
      limits: {
        ...(a.agents !== undefined && { agents: a.agents }),
        ...(a.messages !== undefined && { messages_per_month: a.messages }),
        ...(a.sources !== undefined && { sources: a.sources }),
        ...(megabytes !== undefined && { upload_bytes: megabytes === null ? null : megabytes * 1024 * 1024 }),
      },
      stripe_price_ids: a['stripe-prices'],
      paypal_plan_ids: a['paypal-plans'],
      paddle_price_ids: a['paddle-prices'],
    });
  },
  async 'plan:list'(ctx: CommandContext) {
    return { plans: await listPlans(ctx.database.db) };
  },
  async 'plan:assign'(ctx: CommandContext, args: Record<string, unknown>) {
    const parsed = ZPlanAssignArgs.safeParse(args);
    if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
    return ctx.database.db.transaction().execute((trx) =>
      assignPlan({
        db: trx,
        clock: ctx.clock,
        workspaceId: parsed.data.workspace,
        planKey: parsed.data.plan,
        actor: { type: 'cli', id: null },
      }),
    );
  },
  async usage(ctx: CommandContext, args: Record<string, unknown>) {
    const parsed = ZUsageArgs.safeParse(args);
    if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
    return getWorkspacePlan({ db: ctx.database.db, clock: ctx.clock, workspaceId: parsed.data.workspace });
  },
} as const;
