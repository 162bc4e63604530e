import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { normalizeOrigin, ZAbility } from '@service/contract';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { KeyedConfig } from '../config/config.js';
import type { Database } from '../db/database.js';
import { loadMigrations, migrate } from '../db/migrate.js';
import { type EmbeddingProvider, embeddingProviderFor } from '../embeddings/index.js';
import { AppError, validationError, validationErrorFromZod } from '../errors/app-error.js';
import { autovacuumOn, isEmbeddedStore, maintainTables } from '../jobs/maintain-store.js';
import {
  EVAL_DEFAULT_LIMIT,
  evaluateAgent,
  MAX_GOLDEN_QUESTIONS,
  parseGoldenSet,
  ZGoldenQuestion,
} from '../retrieval/evaluate.js';
import { MAX_LIMIT } from '../retrieval/search.js';
import { getWorkspace } from '../services/accounts/accounts.js';
import { createApiToken } from '../services/accounts/api-tokens.js';
import { bootstrap } from '../services/accounts/bootstrap.js';
import { connectDemoShop } from '../services/ops/demo-seed.js';
import { backupEmbeddedStore } from './backup.js';
import { PLAN_COMMANDS } from './plan-commands.js';
import { USER_COMMANDS } from './user-commands.js';

/**
 * What a data command runs against: the store of this process or of the running service.
 * `embeddings` overrides the configured provider (null: no vector retrieval), e.g. in tests.
 */
export type CommandContext = {
  config: KeyedConfig;
  database: Database;
  /** The clock of the process that runs the command (the service's own, through the control socket). */
  clock: Clock;
  log: Logger;
  embeddings?: EmbeddingProvider | null;
};

const ZTokenCreateArgs = z.strictObject({
  workspace: z.string().min(1),
  name: z.string().trim().min(1).max(100),
  abilities: z
    .string()
    .min(1)
    .transform((value) => value.split(',').map((ability) => ability.trim()))
    .pipe(z.array(ZAbility).min(1)),
});

const ZDemoConnectArgs = z.strictObject({
  origin: z.string().transform((value, ctx) => {
    const origin = normalizeOrigin(value);
    if (origin === null) {
      ctx.addIssue({ code: 'custom', message: 'Must be an origin such as http://localhost:4100.' });
      return z.NEVER;
    }
    return origin;
  }),
});

const ZEvalArgs = z.strictObject({
  agent: z.string().min(1),
  questions: z.array(ZGoldenQuestion).min(1).max(MAX_GOLDEN_QUESTIONS),
  limit: z.number().int().min(1).max(MAX_LIMIT).default(EVAL_DEFAULT_LIMIT),
});

/** Commands that read or write the store; each one can run locally or through the control socket. */
export const DATA_COMMANDS = {
  async bootstrap(ctx: CommandContext, args: Record<string, unknown>) {
    return bootstrap({
      db: ctx.database.db,
      clock: ctx.clock,
      input: args,
      bcryptCost: ctx.config.bcryptCost,
    });
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
      { db: ctx.database.db, clock: ctx.clock, workspaceId: workspace.id, actor: { type: 'cli', id: null } },
      { name: parsed.data.name, abilities: parsed.data.abilities },
    );
    return { ...token, workspace_id: workspace.id };
  },
  /** Connects a local demo shop to the seeded demo workspace (origin allowed, integration token issued). */
  async 'demo:connect'(ctx: CommandContext, args: Record<string, unknown>) {
    const parsed = ZDemoConnectArgs.safeParse(args);
    if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
    return connectDemoShop({ db: ctx.database.db, clock: ctx.clock, origin: parsed.data.origin });
  },
  async migrate(ctx: CommandContext) {
    return migrate(ctx.database.pool, await loadMigrations());
  },
  /** Scores an agent's retrieval on golden questions (parsed by the CLI: see `readEvalOptions`). */
  async eval(ctx: CommandContext, args: Record<string, unknown>) {
    const parsed = ZEvalArgs.safeParse(args);
    if (!parsed.success) throw validationErrorFromZod(parsed.error.issues);
    const embeddings =
      ctx.embeddings !== undefined ? ctx.embeddings : embeddingProviderFor(ctx.config, ctx.database.features);
    return evaluateAgent({
      db: ctx.database.db,
      features: ctx.database.features,
      agentId: parsed.data.agent,
      questions: parsed.data.questions,
      limit: parsed.data.limit,
      embeddings,
      onVectorError: (error) => ctx.log.warn({ err: error }, 'eval: a question could not be embedded'),
    });
  },
  /**
   * VACUUM (ANALYZE) every table now, one at a time (the maintenance job's sweep): on the
   * embedded store, and on a PostgreSQL server with autovacuum off (an operator's cron runs this
   * where they keep it off). With autovacuum on, nothing: the server does this work itself.
   */
  async maintenance(ctx: CommandContext) {
    const { db } = ctx.database;
    if (!(await isEmbeddedStore(db)) && (await autovacuumOn(db)))
      return { skipped: 'PostgreSQL runs autovacuum', tables: [] };
    return { tables: await maintainTables({ db, all: true }) };
  },
  /** Embedded store: a consistent snapshot into `file` (an absolute path the CLI resolved). */
  backup: backupEmbeddedStore,
  ...PLAN_COMMANDS,
  ...USER_COMMANDS,
} as const;

/** Name of a data command. */
export type DataCommandName = keyof typeof DATA_COMMANDS;

/** Whether a name is a data command. */
export function isDataCommand(name: string): name is DataCommandName {
  return Object.hasOwn(DATA_COMMANDS, name);
}

/** The `eval` command's data-command arguments and its CLI-only threshold. */
export type EvalOptions = {
  args: { agent: string; questions: ReturnType<typeof parseGoldenSet>; limit: number };
  /** `--min-recall5`: exit 1 below it; null when not given. */
  minRecall5: number | null;
};

/**
 * The CLI side of `eval`: checks the options and reads and parses the golden file in the CLI
 * process (the service may not see the operator's files), so a bad line fails before anything
 * runs. A relative path is resolved against `cwd` (`npm run` runs in the repository root).
 */
export async function readEvalOptions(
  values: { agent?: string; golden?: string; limit?: string; 'min-recall5'?: string },
  options: { cwd?: string; read?: (path: string) => Promise<string> } = {},
): Promise<EvalOptions> {
  const errors: Record<string, string[]> = {};
  const agent = values.agent?.trim() ?? '';
  if (agent === '') errors.agent = ['The agent id is required (--agent ID).'];
  if (!values.golden) errors.golden = ['The golden file is required (--golden FILE.jsonl).'];
  let limit = EVAL_DEFAULT_LIMIT;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!/^\d+$/.test(values.limit.trim()) || limit < 1 || limit > MAX_LIMIT) {
      errors.limit = [`The limit must be a whole number from 1 to ${MAX_LIMIT}.`];
    }
  }
  let minRecall5: number | null = null;
  if (values['min-recall5'] !== undefined) {
    minRecall5 = Number(values['min-recall5']);
    if (values['min-recall5'].trim() === '' || !(minRecall5 >= 0 && minRecall5 <= 1)) {
      errors['min-recall5'] = ['The minimum recall@5 must be a number from 0 to 1.'];
    }
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const path = resolve(options.cwd ?? process.cwd(), values.golden ?? '');
  const read = options.read ?? ((file: string) => readFile(file, 'utf8'));
  let text: string;
  try {
    text = await read(path);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw validationError({ golden: [`Cannot read the golden file ${path}: ${reason}`] });
  }
  try {
    return { args: { agent, questions: parseGoldenSet(text), limit }, minRecall5 };
  } catch (error) {
    if (error instanceof AppError) {
      throw new AppError('validation_failed', {
        message: `The golden file ${path} is not valid; nothing was run.`,
        errors: error.errors,
      });
    }
    throw error;
  }
}
