import { ensureAppKey } from './config/app-key.js';
import { ConfigError, loadConfig } from './config/config.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { createLogger, prettyDestination, wantsPrettyLog } from './logger.js';
import { startService } from './service.js';

/** `npm start`: HTTP and worker in one process. */
async function main(): Promise<void> {
  const loaded = loadConfig();
  const tty = process.stdout.isTTY === true;
  const log = createLogger(
    loaded.logLevel,
    wantsPrettyLog(loaded.logFormat, tty) ? await prettyDestination(tty) : undefined,
  );
  const config = await ensureAppKey(loaded, (message) => log.warn(message));
  const service = await startService(config, log, {
    worker: config.runJobs,
    onFatal: () => {
      process.exitCode = 1;
      void service.stop().finally(() => process.exit(1));
    },
  });
  log.info({ url: service.url, store: config.database.mode }, `service listening on ${service.url}`);
  // The start ends with what to open.
  const open = service.open;
  if (open?.setupCode)
    log.info(
      { console: open.console },
      `Ready. Open ${open.console} and enter the setup code ${open.setupCode} to create the first account`,
    );
  else if (open) log.info({ console: open.console }, `Ready. Open ${open.console} to sign in`);
  if (open?.demo)
    log.info({ demo: open.demo }, `Demo: open ${open.demo} to chat with the sample agent (no key needed)`);

  const shutdown = (signal: string) => {
    log.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    const timer = setTimeout(
      () => {
        log.error('shutdown took too long; exiting');
        process.exit(1);
      },
      config.shutdownDrainMs + config.shutdownTimeoutMs + 5_000,
    );
    timer.unref();
    // Draining first: /readyz says 503 while the process still serves, then the listener closes.
    service
      .drain(config.shutdownDrainMs)
      .then(() => service.stop())
      .then(
        () => {
          log.info('stopped');
          process.exit(process.exitCode ?? 0);
        },
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else if (error instanceof Error && 'code' in error && error.code === 'EADDRINUSE') {
    process.stderr.write(
      `Failed to start: the port is already in use (${error.message}). Set PORT to another one.\n`,
    );
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exit(1);
});
