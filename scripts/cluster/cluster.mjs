#!/usr/bin/env node
// `node scripts/cluster/cluster.mjs start|stop|status [--instances N] [--workers N] [--keep]`:
// several service instances and worker-only processes on this machine's PostgreSQL and Redis,
// behind nginx on loopback (docs/deploy-nginx.md). `start` leaves them running and records
// them in a state file; `stop` ends them and drops the database unless `--keep`.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clusterUnavailable, dropDatabase, startCluster } from './start-cluster.mjs';

const STATE_FILE = process.env.CLUSTER_STATE_FILE || join(tmpdir(), 'svc-cluster.json');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    instances: { type: 'string', default: '3' },
    workers: { type: 'string', default: '2' },
    port: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readState() {
  if (!existsSync(STATE_FILE)) return null;
  return JSON.parse(readFileSync(STATE_FILE, 'utf8'));
}

async function start() {
  const running = readState();
  if (running?.pids.some(isAlive)) {
    console.error(
      `A cluster is already running (${running.url}); stop it first: node scripts/cluster/cluster.mjs stop`,
    );
    return 1;
  }
  const why = await clusterUnavailable();
  if (why) {
    console.error(`Cannot start the cluster: ${why}`);
    return 1;
  }
  const instances = Number(values.instances);
  const workers = Number(values.workers);
  if (!Number.isInteger(instances) || instances < 1 || !Number.isInteger(workers) || workers < 0) {
    console.error('--instances must be 1 or more and --workers 0 or more');
    return 1;
  }
  console.log(`Starting ${instances} instances and ${workers} workers (this takes a minute)…`);
  const cluster = await startCluster({
    instances,
    workers,
    detached: true,
    keep: values.keep,
    ...(values.port ? { port: Number(values.port) } : {}),
  });
  const { writeFileSync } = await import('node:fs');
  const state = JSON.parse(readFileSync(join(cluster.dir, 'cluster.json'), 'utf8'));
  writeFileSync(STATE_FILE, JSON.stringify({ ...state, keep: values.keep }, null, 2), { mode: 0o600 });
  console.log(`Cluster up at ${cluster.url} (database ${cluster.database}, Redis ${cluster.redisUrl})`);
  for (const proc of [...cluster.instances, ...cluster.workers])
    console.log(
      `  ${proc.name.padEnd(11)} pid ${proc.pid}${proc.url ? `  ${proc.url}` : ''}  log ${proc.logFile}`,
    );
  console.log(`  nginx       pid ${cluster.nginx.pid}  conf ${cluster.nginx.conf}`);
  if (cluster.admin) {
    console.log(
      `Console: ${cluster.url}/admin/  sign in as ${cluster.admin.email} / ${cluster.admin.password}`,
    );
    console.log(`Admin API token: ${cluster.admin.token}`);
  }
  console.log(`State: ${STATE_FILE}. Stop with: node scripts/cluster/cluster.mjs stop`);
  return 0;
}

async function stop() {
  const state = readState();
  if (!state) {
    console.log('No cluster is recorded as running.');
    return 0;
  }
  // Instances and workers first (SIGTERM: they finish what they do), nginx last.
  const nginxPid = state.nginx.pid;
  for (const pid of state.pids.filter((pid) => pid !== nginxPid && isAlive(pid)))
    process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + 40_000;
  while (state.pids.some((pid) => pid !== nginxPid && isAlive(pid)) && Date.now() < deadline)
    await sleep(200);
  for (const pid of state.pids.filter((pid) => pid !== nginxPid && isAlive(pid)))
    process.kill(pid, 'SIGKILL');
  if (isAlive(nginxPid)) process.kill(nginxPid, 'SIGQUIT');
  if (!values.keep && !state.keep) {
    await dropDatabase(state.adminUrl, state.database);
    rmSync(state.dir, { recursive: true, force: true });
    console.log(`Stopped; dropped database ${state.database}.`);
  } else {
    console.log(`Stopped; kept database ${state.database} and ${state.dir}.`);
  }
  rmSync(STATE_FILE, { force: true });
  return 0;
}

async function status() {
  const state = readState();
  if (!state) {
    console.log('No cluster is recorded as running.');
    return 1;
  }
  console.log(`Cluster ${state.url} (database ${state.database})`);
  let healthy = true;
  for (const proc of [...state.instances, ...state.workers]) {
    let ready = '';
    if (proc.url) {
      try {
        const res = await fetch(`${proc.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
        ready = `readyz ${res.status} ${(await res.json()).status}`;
      } catch {
        ready = 'readyz unreachable';
      }
    }
    const alive = isAlive(proc.pid);
    healthy &&= alive;
    console.log(`  ${proc.name.padEnd(11)} pid ${proc.pid} ${alive ? 'running' : 'stopped'} ${ready}`);
  }
  const nginxAlive = isAlive(state.nginx.pid);
  healthy &&= nginxAlive;
  console.log(`  nginx       pid ${state.nginx.pid} ${nginxAlive ? 'running' : 'stopped'}`);
  return healthy ? 0 : 1;
}

const commands = { start, stop, status };
const command = commands[positionals[0] ?? ''];
if (!command) {
  console.error(
    'Usage: node scripts/cluster/cluster.mjs start|stop|status [--instances 3] [--workers 2] [--port N] [--keep]',
  );
  process.exit(1);
}
process.exit(await command());
