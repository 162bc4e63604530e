import { z } from 'zod';
import { validationErrorFromZod } from '../errors/app-error.js';
import { setUserFlag, type UserFlag } from '../services/accounts/platform.js';
import type { CommandContext } from './commands.js';

const ZUserFlagArgs = z.strictObject({
  email: z.string().trim().min(1, 'Name the user by email.').max(320),
  state: z.enum(['on', 'off'], 'Must be on or off.'),
});

/** Runs one flag command inside a transaction (the change and its audit records together). */
async function runFlagCommand(ctx: CommandContext, args: Record<string, unknown>, flag: UserFlag) {
  const parsed = ZUserFlagArgs.safeParse(args);
  if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
  const { email, state } = parsed.data;
  return ctx.database.db.transaction().execute((trx) =>
    setUserFlag({
      db: trx,
      clock: ctx.clock,
      email,
      flag,
      on: state === 'on',
      actor: { type: 'cli', id: null },
    }),
  );
}

/**
 * The operator's user commands (the only way to set these flags; no HTTP route does):
 * `user:byok <email> on|off` lets a user's workspaces use their own model key (BYOK), and
 * `user:platform-admin <email> on|off` makes a user a platform operator. Both are audited in
 * every workspace the user is a member of.
 */
export const USER_COMMANDS = {
  async 'user:byok'(ctx: CommandContext, args: Record<string, unknown>) {
    return runFlagCommand(ctx, args, 'byok');
  },
  async 'user:platform-admin'(ctx: CommandContext, args: Record<string, unknown>) {
    return runFlagCommand(ctx, args, 'platform_admin');
  },
} as const;

/** Whether a command takes `<email> on|off` as positional arguments. */
export function isUserFlagCommand(command: string): boolean {
  return Object.hasOwn(USER_COMMANDS, command);
}
