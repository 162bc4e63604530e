// Starts a whole multi-instance set on this machine: service instances and worker-only
// processes on a fresh PostgreSQL database and Redis, behind nginx on loopback, configured as
// docs/deploy-nginx.md says. Used by `cluster.mjs` (for people) and by the cluster tests.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { renderMainConfig, renderSiteConfig } from './nginx-config.mjs';
import { serviceCode, staleBuild } from './service-code.mjs';

export { readAccessLog } from './access-log.mjs';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DEFAULT_ADMIN_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The nginx binary (PATH or Debian's /usr/sbin), or null. */
export function findNginx() {
  for (const candidate of [process.env.NGINX_BIN, '/usr/sbin/nginx', '/usr/bin/nginx']) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

/** Installs Debian's nginx when it is missing and we are root with apt-get; returns its path or null. */
export function ensureNginx() {
  const found = findNginx();
  if (found || process.getuid?.() !== 0) return found;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const options = { stdio: ['ignore', 'ignore', 'inherit'], env };
  if (spawnSync('apt-get', ['update', '-qq'], options).status !== 0) return null;
  if (spawnSync('apt-get', ['install', '-y', '-qq', 'nginx-light'], options).status !== 0) {
    spawnSync('apt-get', ['install', '-y', '-qq', 'nginx'], options);
  }
  // Debian starts the packaged service on install where it can; the cluster never uses it.
  return findNginx();
}

/** Resolves when `host:port` accepts a TCP connection, false after `timeoutMs`. */
function reachable(host, port, timeoutMs = 2_000) {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Why the cluster cannot start here (a skip message), or null when nginx, PostgreSQL and Redis
 * are all available.
 */
export async function clusterUnavailable(options = {}) {
  const nginx = options.installNginx === false ? findNginx() : ensureNginx();
  if (!nginx) return 'nginx is not installed (apt-get install nginx-light) and could not be installed';
  const adminUrl = new URL(options.adminDatabaseUrl ?? adminDatabaseUrl());
  if (!(await reachable(adminUrl.hostname, Number(adminUrl.port || 5432))))
    return `PostgreSQL is not reachable at ${adminUrl.host}`;
  const redisUrl = new URL(options.redisUrl ?? baseRedisUrl());
  if (!(await reachable(redisUrl.hostname, Number(redisUrl.port || 6379))))
    return `Redis is not reachable at ${redisUrl.host}`;
  return null;
}

/** The server the cluster creates its database on: TEST_DATABASE_URL, else the machine's PostgreSQL. */
export function adminDatabaseUrl() {
  return (
    process.env.CLUSTER_ADMIN_DATABASE_URL || process.env.TEST_DATABASE_URL || DEFAULT_ADMIN_DATABASE_URL
  );
}

function baseRedisUrl() {
  return (
    process.env.CLUSTER_REDIS_URL || process.env.TEST_REDIS_URL || process.env.REDIS_URL || DEFAULT_REDIS_URL
  );
}

function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates (or drops) a database on the server of `adminUrl`. */
async function adminQuery(adminUrl, sql) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops the cluster's database (its connections first). */
export async function dropDatabase(adminUrl, database) {
  if (!/^svc_cluster_[a-z0-9]+$/.test(database)) throw new Error(`refusing to drop ${database}`);
  await adminQuery(adminUrl, `drop database if exists ${database} with (force)`);
}

/** One spawned process of the cluster, its log file and how to stop it. */
class ClusterProcess {
  constructor({ name, node, args, env, logFile, detached }) {
    this.name = name;
    this.logFile = logFile;
    const fd = openSync(logFile, 'a');
    this.child = spawn(process.execPath, [...node, ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', fd, fd],
      detached,
    });
    closeSync(fd);
    if (detached) this.child.unref();
    this.pid = this.child.pid;
    this.exit = null;
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
  }

  log() {
    return existsSync(this.logFile) ? readFileSync(this.logFile, 'utf8') : '';
  }

  /** Sends `signal` and waits (bounded) for the exit; SIGKILL after `timeoutMs`. */
  async stop(signal = 'SIGTERM', timeoutMs = 40_000) {
    if (this.exit) return this.exit;
    this.child.kill(signal);
    const timer = sleep(timeoutMs).then(() => null);
    const status = await Promise.race([this.exited, timer]);
    if (status) return status;
    this.child.kill('SIGKILL');
    return this.exited;
  }
}

/** Waits until `url` answers 200 (the process must not exit meanwhile). */
async function waitReady(proc, url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exit) break;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(
    `${proc.name} did not become ready at ${url} (exit ${JSON.stringify(proc.exit)}):\n${proc.log().slice(-4000)}`,
  );
}

async function waitForLog(proc, text, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.log().includes(text)) return;
    if (proc.exit) break;
    await sleep(200);
  }
  throw new Error(
    `${proc.name}: no "${text}" in its log (exit ${JSON.stringify(proc.exit)}):\n${proc.log().slice(-4000)}`,
  );
}

/** Runs the CLI to completion with the cluster's environment; returns stdout (throws on failure). */
function runCli(code, args, env, input) {
  const result = spawnSync(process.execPath, [...code.node, code.cli, ...args], {
    cwd: ROOT,
    env,
    input: input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (result.status !== 0) throw new Error(`cli ${args[0]} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

/** A clean environment for the children: PATH and friends, then the cluster's variables. */
function baseEnv() {
  const env = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[key]) env[key] = process.env[key];
  return env;
}

/**
 * Starts `instances` service instances (HTTP only) and `workers` worker-only processes on a
 * new database `svc_cluster_<random>` and Redis, behind nginx. `env` adds variables to every
 * process (a fake model, SAFE_URL_ALLOW…). `detached` leaves them running after this process
 * exits (the CLI). Returns the nginx URL, the processes and an admin (owner, token, password).
 */
export async function startCluster(options = {}) {
  const instanceCount = options.instances ?? 3;
  const workerCount = options.workers ?? 2;
  const detached = options.detached === true;
  const codeName = options.code ?? 'sources';
  const code = serviceCode(codeName);
  if (!code) throw new Error(`code must be "sources" or "built", not ${JSON.stringify(options.code)}`);
  if (codeName === 'built') {
    const stale = staleBuild(ROOT);
    if (stale) throw new Error(stale);
  }
  const nginxBin = ensureNginx();
  if (!nginxBin) throw new Error('nginx is not installed');
  const adminUrl = options.adminDatabaseUrl ?? adminDatabaseUrl();
  const id = randomBytes(5).toString('hex');
  const database = `svc_cluster_${id}`;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), `svc-cluster-${id}-`));
  mkdirSync(dir, { recursive: true });
  // Started as root, nginx's workers run as an unprivileged user: they must be able to reach
  // their temporary directories under `dir` (mkdtemp makes it 0700), or every request body
  // larger than the in-memory buffer (16 KiB) fails with a 500 before reaching an instance.
  if (process.getuid?.() === 0) chmodSync(dir, 0o711);
  const redisDb = options.redisDb ?? 1 + (randomBytes(1)[0] % 15);
  const redisUrl = `${baseRedisUrl().replace(/\/\d*$/, '')}/${redisDb}`;
  const appKey = `base64:${randomBytes(32).toString('base64')}`;
  await adminQuery(adminUrl, `create database ${database}`);

  const processes = [];
  let nginx = null;
  const state = { id, dir, database, adminUrl, redisUrl, pids: [] };
  const stopAll = async () => {
    await Promise.all(processes.map((proc) => proc.stop('SIGTERM')));
    if (nginx) await nginx.stop('SIGQUIT');
    if (!options.keep) await dropDatabase(adminUrl, database).catch(() => {});
    if (!options.keep && !options.dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const nginxPort = options.port ?? (await freePort());
    const url = `http://127.0.0.1:${nginxPort}`;
    const common = {
      ...baseEnv(),
      DATABASE_URL: withDatabase(adminUrl, database),
      DATABASE_POOL_SIZE: '5',
      REDIS_URL: redisUrl,
      APP_KEY: appKey,
      HOST: '127.0.0.1',
      TRUST_PROXY: '127.0.0.1',
      PUBLIC_BASE_URL: url,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'info',
      BCRYPT_COST: '4',
      ...options.env,
    };
    const instancePorts = [];
    for (let i = 0; i < instanceCount; i += 1) instancePorts.push(await freePort());
    const instances = instancePorts.map((port, i) => {
      const proc = new ClusterProcess({
        name: `instance-${i + 1}`,
        node: code.node,
        args: [code.main],
        env: { ...common, PORT: String(port), DATA_DIR: join(dir, `instance-${i + 1}`), RUN_JOBS: 'false' },
        logFile: join(dir, `instance-${i + 1}.log`),
        detached,
      });
      proc.port = port;
      proc.url = `http://127.0.0.1:${port}`;
      processes.push(proc);
      return proc;
    });
    await Promise.all(instances.map((proc) => waitReady(proc, `${proc.url}/readyz`, 180_000)));
    const workers = [];
    for (let i = 0; i < workerCount; i += 1) {
      const proc = new ClusterProcess({
        name: `worker-${i + 1}`,
        node: code.node,
        args: [code.cli, 'worker'],
        env: { ...common, DATA_DIR: join(dir, `worker-${i + 1}`) },
        logFile: join(dir, `worker-${i + 1}.log`),
        detached,
      });
      processes.push(proc);
      workers.push(proc);
    }
    await Promise.all(workers.map((proc) => waitForLog(proc, 'worker started', 180_000)));

    const prefix = join(dir, 'nginx');
    mkdirSync(prefix, { recursive: true });
    const accessLog = join(prefix, 'access.log');
    const site = renderSiteConfig({
      servers: instancePorts.map((port) => `127.0.0.1:${port}`),
      listen: `127.0.0.1:${nginxPort}`,
      serverName: 'localhost',
      accessLog,
    });
    const confFile = join(prefix, 'nginx.conf');
    writeFileSync(confFile, renderMainConfig({ prefix, site }));
    const nginxLog = join(prefix, 'nginx.out');
    const fd = openSync(nginxLog, 'a');
    const child = spawn(nginxBin, ['-p', prefix, '-c', confFile, '-e', join(prefix, 'error.log')], {
      stdio: ['ignore', fd, fd],
      detached,
    });
    closeSync(fd);
    if (detached) child.unref();
    nginx = {
      pid: child.pid,
      exit: null,
      exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
      async stop(signal = 'SIGQUIT') {
        if (this.exit) return this.exit;
        child.kill(signal);
        this.exit = await Promise.race([this.exited, sleep(10_000).then(() => null)]);
        if (!this.exit) child.kill('SIGKILL');
        return this.exit;
      },
    };
    void nginx.exited.then((status) => {
      if (nginx) nginx.exit = status;
    });
    const deadline = Date.now() + 20_000;
    while (!(await reachable('127.0.0.1', nginxPort, 500))) {
      if (nginx.exit || Date.now() > deadline)
        throw new Error(
          `nginx did not start: ${readFileSync(nginxLog, 'utf8')}${readFileSync(join(prefix, 'error.log'), 'utf8')}`,
        );
      await sleep(100);
    }

    let admin = null;
    if (options.bootstrap !== false) {
      const email = `admin-${id}@cluster.test`;
      const password = `pw-${randomBytes(9).toString('hex')}`;
      const out = runCli(
        code,
        ['bootstrap', '--email', email, '--password-stdin', '--workspace', 'Cluster', '--json'],
        common,
        password,
      );
      const parsed = JSON.parse(out.trim().split('\n').at(-1));
      admin = { email, password, token: parsed.admin_token, workspaceId: parsed.workspace.id };
    }

    state.pids = [...processes.map((proc) => proc.pid), nginx.pid];
    writeFileSync(
      join(dir, 'cluster.json'),
      JSON.stringify(
        {
          ...state,
          url,
          nginx: { pid: nginx.pid, conf: confFile, accessLog },
          instances: instances.map((proc) => ({
            name: proc.name,
            url: proc.url,
            pid: proc.pid,
            log: proc.logFile,
          })),
          workers: workers.map((proc) => ({ name: proc.name, pid: proc.pid, log: proc.logFile })),
          admin,
        },
        null,
        2,
      ),
      { mode: 0o600 },
    );

    const view = (proc) => ({
      name: proc.name,
      url: proc.url,
      port: proc.port,
      pid: proc.pid,
      logFile: proc.logFile,
      log: () => proc.log(),
      get exit() {
        return proc.exit;
      },
      exited: proc.exited,
      stop: (signal) => proc.stop(signal),
    });
    return {
      url,
      id,
      dir,
      database,
      databaseUrl: common.DATABASE_URL,
      redisUrl,
      admin,
      accessLog,
      instances: instances.map(view),
      workers: workers.map(view),
      nginx: { pid: nginx.pid, conf: confFile },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
