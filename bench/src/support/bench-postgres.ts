/**
 * The PostgreSQL a multi-instance bench runs its set on, chosen with `--postgres`:
 * `private` (the default), a server of its own made with initdb in a temp dir with a fresh
 * server's defaults (autovacuum on, fsync on), as production has them; `shared`, the machine's
 * (or CLUSTER_ADMIN_DATABASE_URL's) whatever its settings: this machine's runs autovacuum off,
 * which lets dead rows pile up through a run (bench/README, "Soak on a PostgreSQL of its own").
 */
import {
  clusterUnavailable as privateClusterUnavailable,
  startPrivateCluster,
} from '../../../apps/server/test/faults/support/private-cluster.js';

export type PostgresChoice = 'private' | 'shared';

/** The `--postgres` argument's choice (unset: `private`), or null when it names neither. */
export function postgresChoice(value: string | undefined): PostgresChoice | null {
  if (value === undefined) return 'private';
  return value === 'private' || value === 'shared' ? value : null;
}

/** The server a bench uses: its admin URL (none: the set's default, the shared one) and its end. */
export type BenchPostgres = {
  adminUrl?: string;
  describe: string;
  /** The private server's log (none for the shared one). */
  logFile?: string;
  close(): Promise<void>;
};

/** Starts a private server, or answers the shared one; exits with the reason when it cannot. */
export async function openBenchPostgres(
  choice: PostgresChoice,
  bench: string,
  /** More settings for a private server (logging: they change what it writes, not how it runs). */
  server?: Readonly<Record<string, string>>,
): Promise<BenchPostgres> {
  if (choice === 'shared') return { describe: 'shared', close: async () => undefined };
  const missing = privateClusterUnavailable();
  if (missing) {
    console.error(`${bench}: cannot make a private PostgreSQL: ${missing} (or run with --postgres shared)`);
    process.exit(1);
  }
  const cluster = await startPrivateCluster({ durable: true, ...(server ? { server } : {}) });
  return {
    adminUrl: cluster.url(),
    describe: 'of its own, a fresh server',
    logFile: cluster.logFile,
    close: () => cluster.destroy(),
  };
}
