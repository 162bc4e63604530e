/** Types of start-cluster.mjs, for the cluster tests. */

/** One process of the cluster: a service instance (with `url`) or a worker. */
export type ClusterProcess = {
  name: string;
  /** `http://127.0.0.1:<port>` of an instance; undefined for a worker. */
  url: string | undefined;
  port: number | undefined;
  pid: number;
  logFile: string;
  /** Its log so far (JSON lines). */
  log(): string;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null } | null;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` (default SIGTERM) and waits for the exit (SIGKILL after 40 s). */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export type Cluster = {
  /** nginx's address. */
  url: string;
  id: string;
  dir: string;
  database: string;
  databaseUrl: string;
  redisUrl: string;
  admin: { email: string; password: string; token: string; workspaceId: string } | null;
  accessLog: string;
  instances: ClusterProcess[];
  workers: ClusterProcess[];
  nginx: { pid: number; conf: string };
  /** Stops everything, drops the database and the directory (unless `keep`). */
  stop(): Promise<void>;
};

export type ClusterOptions = {
  instances?: number;
  workers?: number;
  /** Added to every process's environment. */
  env?: Record<string, string>;
  detached?: boolean;
  keep?: boolean;
  port?: number;
  dir?: string;
  redisDb?: number;
  adminDatabaseUrl?: string;
  bootstrap?: boolean;
  /**
   * `sources` (default): every process runs the TypeScript through tsx; `built`: from
   * `apps/server/dist` (`npm run build` first), as in production.
   */
  code?: 'sources' | 'built';
};

export type AccessLogEntry = {
  method: string;
  path: string;
  status: number;
  /** The instance (`127.0.0.1:<port>`) that answered: the last one tried. */
  upstream: string;
  tried: string[];
  upstreamStatus: string;
  requestId: string;
  /** nginx's whole time for the request, ms ($request_time); NaN when the line has none. */
  requestMs: number;
  raw: string;
};

export declare const ROOT: string;
export declare const DEFAULT_ADMIN_DATABASE_URL: string;
export declare const DEFAULT_REDIS_URL: string;
export declare function freePort(): Promise<number>;
export declare function findNginx(): string | null;
export declare function ensureNginx(): string | null;
export declare function clusterUnavailable(options?: {
  installNginx?: boolean;
  adminDatabaseUrl?: string;
  redisUrl?: string;
}): Promise<string | null>;
export declare function adminDatabaseUrl(): string;
export declare function dropDatabase(adminUrl: string, database: string): Promise<void>;
export declare function startCluster(options?: ClusterOptions): Promise<Cluster>;
export declare function readAccessLog(file: string): AccessLogEntry[];
