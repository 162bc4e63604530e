/**
 * The service as `npm start` starts it (`startService`: embedded store in a temp DATA_DIR,
 * worker in the same process), bootstrapped with one workspace, answering through a fake
 * OpenAI-compatible LLM; for the benches that measure the whole running service.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../apps/server/src/clock.js';
import { ensureAppKey } from '../../../apps/server/src/config/app-key.js';
import { loadConfig } from '../../../apps/server/src/config/config.js';
import { createLogger } from '../../../apps/server/src/logger.js';
import { type RunningService, startService } from '../../../apps/server/src/service.js';
import { type BootstrapResult, bootstrap } from '../../../apps/server/src/services/accounts/bootstrap.js';

/** A started, bootstrapped service: its URL, the workspace's admin token, and how to stop it. */
export type BenchService = {
  service: RunningService;
  baseUrl: string;
  tenant: BootstrapResult;
  /** Stops the service and removes its data directory. */
  stop(): Promise<void>;
};

/**
 * Starts the service in a fresh temp directory named after `name`, its LLM at `llmBaseUrl`
 * and the widget's rate limits scaled out of the way; `env` adds to (or overrides) that config.
 */
export async function startBenchService(options: {
  name: string;
  llmBaseUrl: string;
  env?: Record<string, string>;
}): Promise<BenchService> {
  const dataDir = await mkdtemp(join(tmpdir(), `svc-bench-${options.name}-`));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  let service: RunningService | null = null;
  try {
    const config = await ensureAppKey(
      loadConfig({
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
        BCRYPT_COST: '4',
        LOG_LEVEL: 'silent',
        LLM_PROVIDER: 'openai',
        LLM_BASE_URL: options.llmBaseUrl,
        LLM_API_KEY: 'x',
        WIDGET_RATE_LIMIT_SCALE: '10000',
        ...options.env,
      }),
      () => {},
    );
    service = await startService(config, createLogger('silent'));
    const tenant = await bootstrap({
      db: service.database.db,
      clock: systemClock,
      input: { email: 'bench@example.com', password: 'correct horse battery', workspace: 'Bench' },
      bcryptCost: 4,
    });
    const running = service;
    return {
      service: running,
      baseUrl: running.url ?? '',
      tenant,
      stop: async () => {
        await running.stop();
        await removeDir();
      },
    };
  } catch (error) {
    await service?.stop();
    await removeDir();
    throw error;
  }
}
