// A private PostgreSQL 15 cluster for fault tests: initdb in a temp dir, its own free port on
// 127.0.0.1, started and stopped with pg_ctl. Never the machine's shared server.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** Why a private cluster cannot be made here, or false. */
export function clusterUnavailable(): string | false {
  if (!existsSync(join(PG_BIN, 'initdb')) || !existsSync(join(PG_BIN, 'pg_ctl'))) {
    return `PostgreSQL 15 server binaries are not installed (${PG_BIN}; apt-get install postgresql-15)`;
  }
  return false;
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A private cluster: its URL (database `postgres`, trust auth) and its controls. */
export type PrivateCluster = {
  port: number;
  dir: string;
  /** The server's log (pg_ctl's `-l`). */
  logFile: string;
  url(database?: string): string;
  start(): Promise<void>;
  /** `fast` (default) ends sessions and shuts down cleanly; `immediate` is a crash-like stop. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  destroy(): Promise<void>;
};

/**
 * Creates and starts a cluster. initdb and pg_ctl refuse to run as root, so as root they run as
 * the `postgres` user (the Debian package's), which then owns the temp dir. Tests run it without
 * fsync (fast, nothing to keep); `durable` keeps a fresh server's defaults (fsync, full page
 * writes, autovacuum on), as a production server has them: for measurements (bench:soak).
 */
export async function startPrivateCluster(
  settings: {
    durable?: boolean;
    /** More server settings (`-c name=value`; names and values are the caller's own, never input). */
    server?: Readonly<Record<string, string>>;
  } = {},
): Promise<PrivateCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pgcluster-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, tool), ...args], { timeout: 60_000 })
      : run(join(PG_BIN, tool), args, { timeout: 60_000 });
  const data = join(dir, 'data');
  const logFile = join(dir, 'log');
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    ...(settings.durable ? [] : ['-c fsync=off', '-c full_page_writes=off']),
    '-c max_connections=100',
    ...Object.entries(settings.server ?? {}).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const start = async () => {
    await pg('pg_ctl', ['-D', data, '-o', options, '-l', logFile, '-w', '-t', '60', 'start']);
  };
  await start();
  return {
    port,
    dir,
    logFile,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start,
    async stop(mode = 'fast') {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    },
    async destroy() {
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Creates the named databases on the cluster (names are the tests' own, never input). */
export async function createDatabases(cluster: PrivateCluster, ...names: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  try {
    for (const name of names) await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
}
