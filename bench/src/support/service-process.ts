/**
 * The service in a process of its own, as `npm start` runs it (`apps/server/dist/main.js`, the
 * embedded store in a temp DATA_DIR, worker in the same process), bootstrapped by the CLI before
 * it starts. Unlike `startBenchService`, the bench's clients and fake model then share no event
 * loop with the service: what the bench measures is the service's time alone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../../scripts/cluster/start-cluster.mjs';
import { hasKey } from './http.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = join(ROOT, 'apps/server/dist/main.js');
const CLI = join(ROOT, 'apps/server/dist/cli/main.js');
const START_LIMIT_MS = 60_000;

/** A running service process: its URL, the workspace's admin token, and how to stop it. */
export type ServiceProcess = { baseUrl: string; adminToken: string; pid: number; stop(): Promise<void> };

/**
 * Bootstraps a fresh data dir with the CLI, then starts the built service on a free loopback
 * port, its LLM at `llmBaseUrl`, the widget's rate limits scaled out of the way; `env` adds to
 * (or overrides) that. Needs `npm run build` first.
 */
export async function startServiceProcess(options: {
  name: string;
  llmBaseUrl: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  if (!existsSync(MAIN) || !existsSync(CLI))
    throw new Error('Run `npm run build` first: the service process runs the build');
  const dataDir = await mkdtemp(join(tmpdir(), `svc-bench-${options.name}-`));
  const port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    APP_KEY: `base64:${randomBytes(32).toString('base64')}`,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    LLM_PROVIDER: 'openai',
    LLM_BASE_URL: options.llmBaseUrl,
    LLM_API_KEY: 'x',
    WIDGET_RATE_LIMIT_SCALE: '10000',
    ...options.env,
  };
  try {
    const bootstrap = spawnSync(
      process.execPath,
      [
        CLI,
        'bootstrap',
        '--email',
        'bench@example.com',
        '--password-stdin',
        '--workspace',
        'Bench',
        '--json',
      ],
      { env, input: 'correct horse battery\n', encoding: 'utf8' },
    );
    const result: unknown = bootstrap.status === 0 ? JSON.parse(bootstrap.stdout.trim()) : null;
    if (!hasKey(result, 'admin_token') || typeof result.admin_token !== 'string')
      throw new Error(`cli bootstrap failed (${bootstrap.status}): ${bootstrap.stderr}`);
    const adminToken = result.admin_token;

    const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dataDir, { recursive: true, force: true });
    };
    const baseUrl = `http://127.0.0.1:${port}`;
    const started = performance.now();
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`the service exited with ${child.exitCode} while starting`);
      const healthy = await fetch(`${baseUrl}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) break;
      if (performance.now() - started > START_LIMIT_MS) {
        await stop();
        throw new Error(`the service did not answer /healthz within ${START_LIMIT_MS / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return { baseUrl, adminToken, pid: child.pid ?? 0, stop };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
