// `npm run demo`: starts the demo shop against a running service (`npm start` in another
// terminal). Without SERVICE_API_TOKEN it asks the repo CLI (`demo:connect`) for a token of the
// service's demo workspace, and keeps it in the shop's data directory for the next run.
import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SyncError } from '@service/site-plugin';
import { DEFAULT_DATA_DIR, type DemoShop, startDemoShop } from './index.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CONNECTION_FILE = 'service-connection.json';

type Connection = { token: string; agentId: string | undefined; source: 'env' | 'saved' | 'cli' };

function readPort(value: string | undefined): number {
  const port = Number(value ?? '4100');
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`SHOP_PORT must be a port number, got "${value}".`);
  return port;
}

/** Runs `demo:connect` through the repo CLI and reads its JSON answer. */
async function connectThroughCli(origin: string): Promise<{ token: string; agentId: string }> {
  const run = promisify(execFile);
  let stdout: string;
  try {
    ({ stdout } = await run(
      process.execPath,
      ['scripts/cli.mjs', 'demo:connect', '--origin', origin, '--json'],
      {
        cwd: REPO_ROOT,
        maxBuffer: 1024 * 1024,
      },
    ));
  } catch (error) {
    const stderr = error && typeof error === 'object' && 'stderr' in error ? String(error.stderr).trim() : '';
    throw new Error(
      `Could not get a token from \`npm run cli -- demo:connect\`. Is the service set up (\`npm start\`, embedded store, DEMO_SEED on)? ` +
        `Or set SERVICE_API_TOKEN.${stderr === '' ? '' : `\n${stderr}`}`,
      { cause: error },
    );
  }
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    // Reported below with what the CLI printed.
  }
  if (
    parsed &&
    typeof parsed === 'object' &&
    'token' in parsed &&
    typeof parsed.token === 'string' &&
    'agent_id' in parsed &&
    typeof parsed.agent_id === 'string'
  ) {
    return { token: parsed.token, agentId: parsed.agent_id };
  }
  throw new Error(`demo:connect answered something unexpected: ${stdout.slice(0, 200)}`);
}

async function readSaved(path: string, serviceUrl: string, origin: string): Promise<Connection | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (
      parsed &&
      typeof parsed === 'object' &&
      'service_url' in parsed &&
      parsed.service_url === serviceUrl &&
      'origin' in parsed &&
      parsed.origin === origin &&
      'token' in parsed &&
      typeof parsed.token === 'string' &&
      'agent_id' in parsed &&
      typeof parsed.agent_id === 'string'
    ) {
      return { token: parsed.token, agentId: parsed.agent_id, source: 'saved' };
    }
  } catch {
    // No saved connection (or an unreadable one): ask the CLI.
  }
  return null;
}

async function main(): Promise<void> {
  const serviceUrl = (process.env.SERVICE_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
  const port = readPort(process.env.SHOP_PORT);
  const dataDir = process.env.SHOP_DATA_DIR ?? DEFAULT_DATA_DIR;
  // The widget checks the page's origin exactly: use the name the browser shows (localhost).
  const origin = `http://localhost:${port}`;
  const savedPath = join(dataDir, CONNECTION_FILE);
  const envToken = process.env.SERVICE_API_TOKEN;

  const connect = async (allowSaved: boolean): Promise<Connection> => {
    if (envToken) return { token: envToken, agentId: undefined, source: 'env' };
    const saved = allowSaved ? await readSaved(savedPath, serviceUrl, origin) : null;
    if (saved) return saved;
    console.log(
      `Connecting the shop to the service's demo workspace (npm run cli -- demo:connect --origin ${origin})…`,
    );
    const fresh = await connectThroughCli(origin);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(
      savedPath,
      JSON.stringify({ service_url: serviceUrl, origin, token: fresh.token, agent_id: fresh.agentId }),
      { mode: 0o600 },
    );
    await chmod(savedPath, 0o600);
    return { ...fresh, source: 'cli' };
  };

  const start = (connection: Connection) =>
    startDemoShop({
      serviceUrl,
      apiToken: connection.token,
      ...(connection.agentId ? { agentId: connection.agentId } : {}),
      port,
      host: 'localhost',
      dataDir,
      log: (line) => console.log(`[shop] ${line}`),
    });

  let connection = await connect(true);
  let shop: DemoShop;
  try {
    shop = await start(connection);
  } catch (error) {
    // A saved token stops working when the service's data was reset: get a new one, once.
    const refused = error instanceof Error && error.cause instanceof SyncError && error.cause.status === 401;
    if (connection.source !== 'saved' || !refused) throw error;
    console.log('The saved token was refused (was the service reset?); asking for a new one.');
    await rm(savedPath, { force: true });
    connection = await connect(false);
    shop = await start(connection);
  }

  console.log(`
Northwind Coffee Roasters (demo shop) is running at ${shop.url}
  service ${serviceUrl}, agent ${shop.agentId}${connection.source === 'env' ? ' (token from SERVICE_API_TOKEN: make sure the agent allows this origin)' : ''}

Try:
  1. Open ${shop.url} and ask the assistant about a coffee ("Which coffee for my V60?").
  2. Ask for a discount, press "Apply to cart" on the coupon, then open ${shop.url}/cart: it is applied.
  3. Log in as a demo customer at ${shop.url}/login and ask "Where is my order?".

Press Ctrl+C to stop.`);

  let isStopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (isStopping) process.exit(1);
    isStopping = true;
    console.log(`\n${signal}: stopping the shop…`);
    shop.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  // A second Ctrl+C exits at once.
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`\n${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
