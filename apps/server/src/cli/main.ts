import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { systemClock } from '../clock.js';
import { ensureAppKey, generateAppKey } from '../config/app-key.js';
import { type Config, ConfigError, loadConfig } from '../config/config.js';
import { DataDirLockedError, lockDataDir } from '../db/data-dir-lock.js';
import { type Database, openEmbeddedDatabase, openPostgresDatabase } from '../db/database.js';
import { loadMigrations, migrate } from '../db/migrate.js';
import { AppError } from '../errors/app-error.js';
import { createLogger } from '../logger.js';
import { startService } from '../service.js';
import { RestoreRefusedError, restoreEmbeddedStore } from './backup.js';
import { DATA_COMMANDS, type DataCommandName, isDataCommand, readEvalOptions } from './commands.js';
import { ControlCommandError, callControlServer } from './control-socket.js';
import { formatResult } from './format.js';
import { rotateAppKey } from './key-rotation.js';
import { lowerPriority } from './process-priority.js';
import { resolvePassword } from './read-password.js';
import { isUserFlagCommand } from './user-commands.js';

const USAGE = `Usage: npm run cli -- <command> [options]

Commands:
  bootstrap --email E --password-stdin --workspace NAME [--json]
                       Create the first (or another) owner, their workspace and an admin API token.
                       The password is read from standard input (one trailing newline dropped);
                       without --password-stdin a terminal asks for it without echo.
                       (--password P still works but shows the password in the process list.)
  token:create --workspace ID --name N --abilities admin,wp:integration [--json]
                       Issue an API token; prints the plaintext once.
  demo:connect --origin URL [--json]
                       Connect a local demo shop (npm run demo) to the seeded demo workspace:
                       allow its origin on the demo agent and issue a wp:integration token.
  migrate [--json]     Apply pending database migrations.
  maintenance [--json] VACUUM (ANALYZE) every table now, one at a time: the embedded store's
                       maintenance job runs this every STORE_MAINTENANCE_INTERVAL_MINUTES; on
                       PostgreSQL only when the server has autovacuum off (for your cron).
  eval --agent ID --golden FILE.jsonl [--limit N] [--min-recall5 X] [--json]
                       Score an agent's retrieval on golden questions (one JSON object a line:
                       {"question", "expected_url" | "expected_text", "id"?}); prints recall@1,
                       recall@5, MRR (top 10) and the misses. --limit: hits per question
                       (default 10, at most 50). --min-recall5: exit 1 when recall@5 is below X.
  plan:set --key K [--name N] [--agents N] [--messages N] [--sources N] [--upload-mb N]
           [--stripe-prices a,b] [--paypal-plans a,b] [--paddle-prices a,b] [--json]
                       Create or change a plan. A limit is a whole number or none (no limit);
                       --messages is visitor messages a month. The price ids map a provider's
                       subscription onto the plan (docs/billing.md). Every workspace starts on
                       the plan "default" (no limits until you set some).
  plan:list [--json]   List the plans with their limits and price ids.
  plan:assign --workspace ID --plan K [--json]
                       Put a workspace on a plan (audited); billing webhooks do this too.
  usage --workspace ID [--json]
                       A workspace's plan, limits, this month's usage and the limits reached.
  user:byok EMAIL on|off [--json]
                       Let the user's workspaces use their own model key (BYOK), or stop it: with
                       it off, answers use the server's model from the next turn and setting a
                       key is refused. Audited in each of the user's workspaces.
  user:platform-admin EMAIL on|off [--json]
                       Make a user a platform operator (the console's Platform page: every
                       workspace, plan changes, viewing as a member), or stop it. Audited in each
                       of the user's workspaces. The first user bootstrap creates is one.
  backup FILE [--json] Embedded store: write a consistent snapshot of the store (and DATA_DIR's
                       app.key) to FILE (mode 0600), while the service runs or not.
  restore FILE [--data-dir DIR] [--force] [--json]
                       Check the backup FILE, then restore it into DIR (default DATA_DIR), which
                       must be empty or new; --force replaces the store of a stopped service.
  worker               Run a job worker alone (PostgreSQL mode; on the embedded store
                       the worker runs inside npm start).
  key:generate         Print a new APP_KEY value.
  key:rotate [--new-key base64:…] [--json]
                       Re-seal every stored secret with a new APP_KEY (given or generated; with
                       APP_KEY_PREVIOUS set and no --new-key: with APP_KEY, finishing a rollover).
                       Embedded store: stop the service first; app.key is replaced and the old
                       key kept in app.key.previous. See docs/operations.md.

Data commands work whether or not the service is running: while it holds the embedded
store they run inside it through the control socket under DATA_DIR.`;

/** Runs one CLI invocation; returns the exit code. */
export async function runCli(argv: string[], env?: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      workspace: { type: 'string' },
      name: { type: 'string' },
      abilities: { type: 'string' },
      agent: { type: 'string' },
      golden: { type: 'string' },
      limit: { type: 'string' },
      'min-recall5': { type: 'string' },
      'new-key': { type: 'string' },
      origin: { type: 'string' },
      key: { type: 'string' },
      plan: { type: 'string' },
      agents: { type: 'string' },
      messages: { type: 'string' },
      sources: { type: 'string' },
      'upload-mb': { type: 'string' },
      'stripe-prices': { type: 'string' },
      'paypal-plans': { type: 'string' },
      'paddle-prices': { type: 'string' },
      'data-dir': { type: 'string' },
      force: { type: 'boolean' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals[0];
  if (!command || values.help) {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 1;
  }
  // The one command that runs without APP_KEY (it makes one, and needs no store): answered
  // before the config is read. Every other command gets a KeyedConfig from ensureAppKey before
  // it builds anything (key:rotate after its DATA_DIR lock; a data command through the running
  // service, which has its key, or locally); on PostgreSQL loadConfig refuses a missing
  // APP_KEY with a message naming key:generate.
  if (command === 'key:generate') {
    process.stdout.write(`${generateAppKey()}\n`);
    return 0;
  }
  const config = loadConfig(env);
  // CLI logs go to stderr so stdout carries only the command's answer (e.g. --json). A worker
  // is a long-running process like the service: it logs at LOG_LEVEL (each job it ran, at info).
  const log = createLogger(
    config.logLevel === 'info' && command !== 'worker' ? 'warn' : config.logLevel,
    process.stderr,
  );
  if (command === 'worker') return runWorker(config, log);
  if (command === 'key:rotate') {
    const result = await rotateAppKey({
      config,
      newKey: values['new-key'],
      openDatabase: (withKey) => openStore(withKey, log, true),
      warn: (message) => log.warn(message),
    });
    process.stdout.write(`${formatResult(command, result, values.json)}\n`);
    return 0;
  }
  const { 'data-dir': dataDirOption, force, ...values_ } = values;
  if (command === 'restore') {
    const file = positionals[1];
    if (!file || positionals.length !== 2) {
      process.stderr.write('Usage: npm run cli -- restore FILE [--data-dir DIR] [--force] [--json]\n');
      return 1;
    }
    const result = await restoreEmbeddedStore({
      file: resolve(file),
      dataDir: resolve(dataDirOption ?? config.dataDir),
      force: force === true,
      log: quiet(log),
    });
    process.stdout.write(`${formatResult(command, result, values.json)}\n`);
    return 0;
  }
  if (dataDirOption !== undefined || force !== undefined) {
    process.stderr.write(`--data-dir and --force are options of restore only, not of ${command}.\n`);
    return 1;
  }
  if (!isDataCommand(command)) {
    process.stderr.write(`Unknown command: ${command}\n\n${USAGE}\n`);
    return 1;
  }
  const { json, help: _help, 'password-stdin': passwordStdin, ...args } = values_;
  if (command === 'bootstrap') {
    args.password = await resolvePassword({
      password: args.password,
      passwordStdin,
      input: process.stdin,
      output: process.stderr,
    });
  } else if (passwordStdin) {
    process.stderr.write(`--password-stdin is an option of bootstrap only, not of ${command}.\n`);
    return 1;
  }
  if (command === 'eval') return runEval(config, log, args, json);
  if (isUserFlagCommand(command)) {
    if (positionals.length !== 3) {
      process.stderr.write(`Usage: npm run cli -- ${command} EMAIL on|off [--json]\n`);
      return 1;
    }
    Object.assign(args, { email: positionals[1], state: positionals[2] });
  }
  if (command === 'backup') {
    const file = positionals[1];
    if (!file || positionals.length !== 2) {
      process.stderr.write('Usage: npm run cli -- backup FILE [--json]\n');
      return 1;
    }
    Object.assign(args, { file: resolve(file) });
  }
  const result = await runDataCommand(config, log, command, args);
  process.stdout.write(`${formatResult(command, result, json)}\n`);
  return 0;
}

/** `cli eval`: reads the golden file here, runs the questions as a data command, gates on --min-recall5. */
async function runEval(
  config: Config,
  log: Logger,
  values: Parameters<typeof readEvalOptions>[0],
  json: boolean,
): Promise<number> {
  const { args, minRecall5 } = await readEvalOptions(values);
  const result = await runDataCommand(config, log, 'eval', args);
  process.stdout.write(`${formatResult('eval', result, json)}\n`);
  if (minRecall5 === null) return 0;
  const recall5 =
    typeof result === 'object' && result !== null && 'recall_at_5' in result ? Number(result.recall_at_5) : 0;
  if (recall5 >= minRecall5) return 0;
  process.stderr.write(`recall@5 ${recall5} is below --min-recall5 ${minRecall5}.\n`);
  return 1;
}

/** Runs a data command on the local store, or through the running service when it holds the store. */
async function runDataCommand(
  config: Config,
  log: Logger,
  command: DataCommandName,
  args: Record<string, unknown>,
): Promise<unknown> {
  let release: (() => Promise<void>) | null = null;
  if (config.database.mode === 'embedded') {
    try {
      release = await lockDataDir(config.dataDir, (error) =>
        log.fatal({ err: error }, 'lost the DATA_DIR lock'),
      );
    } catch (error) {
      if (error instanceof DataDirLockedError) return callControlServer(config.dataDir, command, args);
      throw error;
    }
  }
  let database: Database | null = null;
  try {
    const withKey = await ensureAppKey(config, (message) => log.warn(message));
    // migrate runs its own migrations; a backup copies the store as it is.
    database = await openStore(withKey, log, command !== 'migrate' && command !== 'backup');
    return await DATA_COMMANDS[command]({ config: withKey, database, clock: systemClock, log }, args);
  } finally {
    await database?.close();
    await release?.();
  }
}

/** Opens the configured store (the caller holds the DATA_DIR lock on the embedded one), migrated unless told. */
async function openStore(config: Config, log: Logger, migrated: boolean): Promise<Database> {
  const database =
    config.database.mode === 'embedded'
      ? await openEmbeddedDatabase({
          dataDir: config.dataDir,
          log: quiet(log),
          cacheMb: config.database.cacheMb,
          scheduling: config.database.scheduling,
        })
      : await openPostgresDatabase({ url: config.database.url, poolSize: 2, log: quiet(log) });
  try {
    if (migrated) await migrate(database.pool, await loadMigrations());
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** `cli worker`: a worker-only process on PostgreSQL, stopped gracefully by SIGTERM/SIGINT. */
async function runWorker(config: Config, log: Logger): Promise<number> {
  if (config.database.mode === 'embedded') {
    process.stderr.write(
      'The worker runs inside `npm start` on the embedded store (it allows one process). ' +
        'Set DATABASE_URL to run separate workers on PostgreSQL.\n',
    );
    return 1;
  }
  // Indexing on a machine shared with service instances: their answers get the CPU first.
  if (config.workerNice > 0) lowerPriority(config.workerNice);
  // PostgreSQL only: loadConfig already demanded APP_KEY, so this reads it and writes no key file.
  const keyed = await ensureAppKey(config, (message) => log.warn(message));
  let failed = false;
  let stopWaiting = () => {};
  const stopped = new Promise<void>((resolve) => {
    stopWaiting = resolve;
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  // A lost DATA_DIR lock or a stopped store thread ends the worker with exit code 1.
  const service = await startService(keyed, log, {
    http: false,
    worker: true,
    onFatal: () => {
      failed = true;
      stopWaiting();
    },
  });
  log.warn({ nice: config.workerNice }, 'worker started');
  await stopped;
  log.warn('worker stopping: finishing running jobs');
  await service.stop();
  return failed ? 1 : 0;
}

function quiet(log: Logger) {
  return {
    info: (msg: string) => log.debug(msg),
    warn: (msg: string) => log.warn(msg),
    error: (msg: string) => log.error(msg),
  };
}

/** Prints a failure readably: the message, then one line per field error. */
function report(error: unknown): number {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof RestoreRefusedError
  ) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof AppError || error instanceof ControlCommandError) {
    process.stderr.write(`Error: ${error.message}\n`);
    for (const [field, messages] of Object.entries(error.errors)) {
      // Errors name a path ("abilities.0"); the CLI user knows the option ("--abilities").
      const option = field.split('.')[0] ?? field;
      for (const message of messages) process.stderr.write(`  --${option}: ${message}\n`);
    }
  } else if (
    error instanceof TypeError &&
    'code' in error &&
    String(error.code).startsWith('ERR_PARSE_ARGS')
  ) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
  } else {
    process.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  return 1;
}

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => process.exit(report(error)),
);
