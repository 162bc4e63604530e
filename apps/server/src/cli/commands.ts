import { ZAbility } from '@service/contract';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { loadMigrations, migrate } from '../db/migrate.js';
import { AppError, validationErrorFromZod } from '../errors/app-error.js';
import { getWorkspace } from '../services/accounts.js';
import { createApiToken } from '../services/api-tokens.js';
import { bootstrap } from '../services/bootstrap.js';

/** What a data command runs against: the store of this process or of the running service. */
export type CommandContext = { config: Config; database: Database; log: Logger };

const ZTokenCreateArgs = z.strictObject({
  workspace: z.string().min(1),
  name: z.string().trim().min(1).max(100),
  abilities: z
    .string()
    .min(1)
    .transform((value) => value.split(',').map((ability) => ability.trim()))
    .pipe(z.array(ZAbility).min(1)),
});

/** Commands that read or write the store; each one can run locally or through the control socket. */
export const DATA_COMMANDS = {
  async bootstrap(ctx: CommandContext, args: Record<string, unknown>) {
    return bootstrap({ db: ctx.database.db, input: args, bcryptCost: ctx.config.bcryptCost });
  },
  async 'token:create'(ctx: CommandContext, args: Record<string, unknown>) {
    const parsed = ZTokenCreateArgs.safeParse(args);
    if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
    const workspace = await getWorkspace(ctx.database.db, parsed.data.workspace).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'not_found') {
        throw new AppError('not_found', { message: `No workspace with id ${parsed.data.workspace}.` });
      }
      throw error;
    });
    const token = await createApiToken(
      { db: ctx.database.db, workspaceId: workspace.id, actor: { type: 'cli', id: null } },
      { name: parsed.data.name, abilities: parsed.data.abilities },
    );
    return { ...token, workspace_id: workspace.id };
  },
  async migrate(ctx: CommandContext) {
    return migrate(ctx.database.pool, await loadMigrations());
  },
} as const;

/** Name of a data command. */
export type DataCommandName = keyof typeof DATA_COMMANDS;

/** Whether a name is a data command. */
export function isDataCommand(name: string): name is DataCommandName {
  return Object.hasOwn(DATA_COMMANDS, name);
}
