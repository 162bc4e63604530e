import { fileURLToPath } from 'node:url';
import { decodeAppKey, ZEnv } from './env.js';

export { decodeAppKey, EXTRACTION_DEFAULTS, ZEnv } from './env.js';

/** The parsed, typed and frozen configuration. */
export type Config = Readonly<{
  port: number;
  host: string;
  dataDir: string;
  publicBaseUrl: string | undefined;
  /**
   * Embedded: `cacheMb` is the buffer cache (`EMBEDDED_CACHE_MB`; absent, sized from the data at
   * start); `scheduling` how the store's thread orders its connections (`EMBEDDED_STORE_SCHEDULING`).
   */
  database: Readonly<
    | { mode: 'embedded'; cacheMb?: number; scheduling: 'interactive-first' | 'fifo' }
    | { mode: 'postgres'; url: string; poolSize: number }
  >;
  redisUrl: string | undefined;
  /** Raw 32-byte master key; undefined until `ensureAppKey` provides one (see {@link KeyedConfig}). */
  appKey: Buffer | undefined;
  /** APP_KEY_PREVIOUS: the key being rotated away from; secrets it sealed still open (see `key:rotate`). */
  appKeyPrevious: Buffer | undefined;
  widgetTokenSecret: string | undefined;
  llm: Readonly<{
    provider: 'offline' | 'openai' | 'anthropic';
    baseUrl?: string;
    apiKey?: string;
    model?: string;
    /** A second provider tried once when the first fails before answering. */
    fallback?: Readonly<{
      provider: 'openai' | 'anthropic';
      baseUrl?: string;
      apiKey?: string;
      model?: string;
    }>;
    /** Budget of one model call (connect to last token). */
    timeoutMs: number;
  }>;
  embeddings: Readonly<{
    provider: 'none' | 'offline' | 'openai';
    baseUrl?: string;
    apiKey?: string;
    model?: string;
    dimensions?: number;
  }>;
  safeUrlAllow: readonly string[];
  /**
   * Where mail goes: `smtpUrl` (SMTP_URL) when set, else `.eml` files in DATA_DIR/outbox/;
   * `from` is MAIL_FROM. The URL may hold credentials: it is never logged.
   */
  mail: Readonly<{ smtpUrl: string | undefined; from: string }>;
  bcryptCost: number;
  bodyLimitBytes: number;
  /** Body limit of the site-integration sync routes (50 posts of HTML can be large). */
  syncBodyLimitBytes: number;
  /** Requests per minute per API token on `/api/v1/wp/*`. */
  wpThrottlePerMinute: number;
  /**
   * Which proxies may set X-Forwarded-For (Fastify's `trustProxy`): false (the socket's peer is
   * the client), true (trust every proxy), or proxy addresses/CIDRs. Per-IP limits depend on it.
   */
  trustProxy: boolean | string;
  /** Seed a labelled demo workspace, agent and sample knowledge on an empty embedded store. */
  demoSeed: boolean;
  /** Where the built widget (manifest.json, widget.<hash>.js, locales/) is read from. */
  widgetDistDir: string;
  /** Where the built admin console (index.html, assets/) is read from; served at /admin/. */
  adminDistDir: string;
  /** Admin API requests per minute per credential (token or session). */
  adminRateLimitPerMinute: number;
  /** Admin search, uploads, new sources and reindex per minute per credential. */
  adminExpensiveRateLimitPerMinute: number;
  /** Minutes between two runs of the embedded store's maintenance (VACUUM/ANALYZE); 0 turns it off. */
  storeMaintenanceIntervalMinutes: number;
  /** Multiplies every widget limit (1: the contract's values; benchmarks raise it). */
  widgetRateLimitScale: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `LOG_FORMAT`: JSON lines, readable lines, or readable only on a terminal (`auto`). */
  logFormat: 'auto' | 'json' | 'pretty';
  shutdownTimeoutMs: number;
  /**
   * After SIGTERM, how long the process keeps listening while `/readyz` answers 503 `draining`
   * (for balancers that poll it) before it stops accepting connections (SHUTDOWN_DRAIN_MS).
   */
  shutdownDrainMs: number;
  /** Whether `npm start` also works through the job queue (RUN_JOBS; false: HTTP only, PostgreSQL only). */
  runJobs: boolean;
  /** `cli worker`: the nice value (0-19) a worker-only process lowers its CPU priority to (WORKER_NICE). */
  workerNice: number;
  /** PostgreSQL: seconds a running job's lease lasts without renewal (JOB_LEASE_SECONDS). */
  jobLeaseSeconds: number;
  /** Least time between two requests of a crawl to one site (robots.txt Crawl-delay may raise it). */
  crawlDelayMs: number;
  /** Seconds an unclaimed handoff waits before the operators are mailed (HANDOFF_MAIL_AFTER_SECONDS); 0: never. */
  handoffMailAfterSeconds: number;
  /** Worker threads that read uploads and crawled pages: how many, heap cap per thread, time per file. */
  extraction: Readonly<{ workers: number; heapMb: number; timeoutMs: number }>;
  /**
   * The billing webhooks (`docs/billing.md`): a provider without its settings answers 404.
   * `toleranceSeconds`: how far a signed timestamp may be from the service's clock.
   */
  billing: Readonly<{
    toleranceSeconds: number;
    stripe: Readonly<{ webhookSecret: string }> | null;
    paypal: Readonly<{ webhookId: string; clientId: string; clientSecret: string; apiBase: string }> | null;
    paddle: Readonly<{ webhookSecret: string }> | null;
  }>;
}>;

/**
 * The configuration once APP_KEY is loaded: what every process that serves requests, works jobs
 * or touches sealed secrets runs with. `ensureAppKey` is the one way from a {@link Config} to it.
 */
export type KeyedConfig = Config & Readonly<{ appKey: Buffer }>;

/** Whether APP_KEY is loaded (narrows a {@link Config} to a {@link KeyedConfig}). */
export function hasAppKey(config: Config): config is KeyedConfig {
  return config.appKey !== undefined;
}

/** The widget package's build output, beside this package in the repository (src and dist alike). */
const DEFAULT_WIDGET_DIST_DIR = fileURLToPath(new URL('../../../widget/dist/', import.meta.url));

/** The admin console's build output, beside this package in the repository. */
const DEFAULT_ADMIN_DIST_DIR = fileURLToPath(new URL('../../../admin/dist/', import.meta.url));

/** Raised when the environment does not parse; its message lists every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment once into a frozen {@link Config}; throws {@link ConfigError}. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ZEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `  - ${issue.path.join('.') || '(env)'}: ${issue.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.LLM_PROVIDER === 'openai' && !e.LLM_BASE_URL && !e.LLM_API_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  - LLM_PROVIDER: openai needs LLM_API_KEY or LLM_BASE_URL',
    );
  }
  if (e.EMBEDDINGS_PROVIDER === 'openai' && !e.EMBEDDINGS_BASE_URL && !e.EMBEDDINGS_API_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  - EMBEDDINGS_PROVIDER: openai needs EMBEDDINGS_API_KEY or EMBEDDINGS_BASE_URL',
    );
  }
  if (e.LLM_PROVIDER === 'anthropic' && !e.LLM_API_KEY) {
    throw new ConfigError('Invalid configuration:\n  - LLM_PROVIDER: anthropic needs LLM_API_KEY');
  }
  if (e.LLM_FALLBACK_PROVIDER === 'openai' && !e.LLM_FALLBACK_BASE_URL && !e.LLM_FALLBACK_API_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  - LLM_FALLBACK_PROVIDER: openai needs LLM_FALLBACK_API_KEY or LLM_FALLBACK_BASE_URL',
    );
  }
  if (e.LLM_FALLBACK_PROVIDER === 'anthropic' && !e.LLM_FALLBACK_API_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  - LLM_FALLBACK_PROVIDER: anthropic needs LLM_FALLBACK_API_KEY',
    );
  }
  const paypalSettings = [e.PAYPAL_WEBHOOK_ID, e.PAYPAL_CLIENT_ID, e.PAYPAL_CLIENT_SECRET];
  if (
    paypalSettings.some((value) => value !== undefined) &&
    paypalSettings.some((value) => value === undefined)
  ) {
    throw new ConfigError(
      'Invalid configuration:\n  - PAYPAL_WEBHOOK_ID, PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET: set all three to receive PayPal webhooks, or none',
    );
  }
  if (e.DATABASE_URL && !e.APP_KEY) {
    throw new ConfigError(
      'Invalid configuration:\n  - APP_KEY: required when DATABASE_URL is set, so every instance shares it; ' +
        'create one with `npm run cli -- key:generate`',
    );
  }
  if (!e.RUN_JOBS && !e.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration:\n  - RUN_JOBS: false needs DATABASE_URL (on the embedded store the jobs run in the service, the only process)',
    );
  }
  const config: Config = {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/+$/, ''),
    database: Object.freeze(
      e.DATABASE_URL
        ? { mode: 'postgres' as const, url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE }
        : {
            mode: 'embedded' as const,
            scheduling: e.EMBEDDED_STORE_SCHEDULING,
            ...(e.EMBEDDED_CACHE_MB ? { cacheMb: e.EMBEDDED_CACHE_MB } : {}),
          },
    ),
    redisUrl: e.REDIS_URL,
    appKey: e.APP_KEY ? (decodeAppKey(e.APP_KEY) ?? undefined) : undefined,
    appKeyPrevious: e.APP_KEY_PREVIOUS ? (decodeAppKey(e.APP_KEY_PREVIOUS) ?? undefined) : undefined,
    widgetTokenSecret: e.WIDGET_TOKEN_SECRET,
    llm: Object.freeze({
      provider: e.LLM_PROVIDER,
      baseUrl: e.LLM_BASE_URL,
      apiKey: e.LLM_API_KEY,
      model: e.LLM_MODEL,
      ...(e.LLM_FALLBACK_PROVIDER
        ? {
            fallback: Object.freeze({
              provider: e.LLM_FALLBACK_PROVIDER,
              baseUrl: e.LLM_FALLBACK_BASE_URL,
              apiKey: e.LLM_FALLBACK_API_KEY,
              model: e.LLM_FALLBACK_MODEL,
            }),
          }
        : {}),
      timeoutMs: e.LLM_TIMEOUT_MS,
    }),
    embeddings: Object.freeze({
      provider: e.EMBEDDINGS_PROVIDER,
      baseUrl: e.EMBEDDINGS_BASE_URL,
      apiKey: e.EMBEDDINGS_API_KEY,
      model: e.EMBEDDINGS_MODEL,
      dimensions: e.EMBEDDINGS_DIMENSIONS,
    }),
    safeUrlAllow: Object.freeze(e.SAFE_URL_ALLOW),
    mail: Object.freeze({ smtpUrl: e.SMTP_URL, from: e.MAIL_FROM }),
    bcryptCost: e.BCRYPT_COST,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    syncBodyLimitBytes: e.SYNC_BODY_LIMIT_BYTES,
    wpThrottlePerMinute: e.WP_THROTTLE_PER_MINUTE,
    widgetRateLimitScale: e.WIDGET_RATE_LIMIT_SCALE,
    adminRateLimitPerMinute: e.ADMIN_RATE_LIMIT_PER_MINUTE,
    adminExpensiveRateLimitPerMinute: e.ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE,
    storeMaintenanceIntervalMinutes: e.STORE_MAINTENANCE_INTERVAL_MINUTES,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    demoSeed: e.DEMO_SEED,
    widgetDistDir: e.WIDGET_DIST_DIR ?? DEFAULT_WIDGET_DIST_DIR,
    adminDistDir: e.ADMIN_DIST_DIR ?? DEFAULT_ADMIN_DIST_DIR,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    runJobs: e.RUN_JOBS,
    workerNice: e.WORKER_NICE,
    jobLeaseSeconds: e.JOB_LEASE_SECONDS,
    crawlDelayMs: e.CRAWL_DELAY_MS,
    handoffMailAfterSeconds: e.HANDOFF_MAIL_AFTER_SECONDS,
    extraction: Object.freeze({
      workers: e.EXTRACT_WORKERS,
      heapMb: e.EXTRACT_HEAP_MB,
      timeoutMs: e.EXTRACT_TIMEOUT_MS,
    }),
    billing: Object.freeze({
      toleranceSeconds: e.BILLING_WEBHOOK_TOLERANCE_SECONDS,
      stripe: e.STRIPE_WEBHOOK_SECRET ? Object.freeze({ webhookSecret: e.STRIPE_WEBHOOK_SECRET }) : null,
      paypal:
        e.PAYPAL_WEBHOOK_ID && e.PAYPAL_CLIENT_ID && e.PAYPAL_CLIENT_SECRET
          ? Object.freeze({
              webhookId: e.PAYPAL_WEBHOOK_ID,
              clientId: e.PAYPAL_CLIENT_ID,
              clientSecret: e.PAYPAL_CLIENT_SECRET,
              apiBase: e.PAYPAL_API_BASE.replace(/\/+$/, ''),
            })
          : null,
      paddle: e.PADDLE_WEBHOOK_SECRET ? Object.freeze({ webhookSecret: e.PADDLE_WEBHOOK_SECRET }) : null,
    }),
  };
  return Object.freeze(config);
}

/** TRUST_PROXY as Fastify takes it: a boolean, or the address list without spaces. */
function parseTrustProxy(value: string | undefined): boolean | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return value.replace(/\s+/g, '');
}
