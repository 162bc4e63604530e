/**
 * The environment the service reads (`ZEnv`): every variable, its parsing and its default. Parsed
 * once by `loadConfig` (config.ts); nothing else reads process.env.
 */
import { z } from 'zod';

const emptyToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyToUndefined, z.url().optional());

/** `APP_KEY`: 32 random bytes, written as `base64:<44 chars>` (the form `key:generate` prints). */
const ZAppKey = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .refine(
      (value) => decodeAppKey(value) !== null,
      'must be base64:<32 bytes in base64>; run `npm run cli -- key:generate`',
    )
    .optional(),
);

const ZPostgresUrl = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .refine((value) => /^postgres(?:ql)?:\/\//.test(value), 'must be a postgres:// or postgresql:// URL')
    .optional(),
);

/**
 * Defaults of the extraction workers (EXTRACT_*): threads, heap per thread (MB) and time per file
 * (ms). Exported so the process-wide pool has the same defaults before the service configures it.
 */
export const EXTRACTION_DEFAULTS = Object.freeze({ workers: 2, heapMb: 512, timeoutMs: 60_000 });

/** Every environment variable the service reads, with its default. Nothing else reads process.env. */
export const ZEnv = z.object({
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(8080)),
  HOST: z.preprocess(emptyToUndefined, z.string().default('0.0.0.0')),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  PUBLIC_BASE_URL: optionalUrl,
  DATABASE_URL: ZPostgresUrl,
  DATABASE_POOL_SIZE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(100).default(10)),
  EMBEDDED_CACHE_MB: z.preprocess(emptyToUndefined, z.coerce.number().int().min(16).max(1024).optional()),
  EMBEDDED_STORE_SCHEDULING: z.preprocess(
    emptyToUndefined,
    z.enum(['interactive-first', 'fifo']).default('interactive-first'),
  ),
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((value) => /^rediss?:\/\//.test(value), 'must be a redis:// or rediss:// URL')
      .optional(),
  ),
  APP_KEY: ZAppKey,
  APP_KEY_PREVIOUS: ZAppKey,
  WIDGET_TOKEN_SECRET: optionalString,
  LLM_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['offline', 'openai', 'anthropic']).default('offline')),
  LLM_BASE_URL: optionalUrl,
  LLM_API_KEY: optionalString,
  LLM_MODEL: optionalString,
  LLM_FALLBACK_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['openai', 'anthropic']).optional()),
  LLM_FALLBACK_BASE_URL: optionalUrl,
  LLM_FALLBACK_API_KEY: optionalString,
  LLM_FALLBACK_MODEL: optionalString,
  LLM_TIMEOUT_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1000).max(600_000).default(60_000),
  ),
  EMBEDDINGS_PROVIDER: z.preprocess(emptyToUndefined, z.enum(['none', 'offline', 'openai']).default('none')),
  EMBEDDINGS_BASE_URL: optionalUrl,
  EMBEDDINGS_API_KEY: optionalString,
  EMBEDDINGS_MODEL: optionalString,
  EMBEDDINGS_DIMENSIONS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(8).max(4096).optional()),
  SAFE_URL_ALLOW: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((entry) => entry.trim().toLowerCase())
          .filter((entry) => entry !== ''),
      ),
  ),
  // Mail: SMTP when SMTP_URL is set (smtp:// or smtps://, credentials in the URL); otherwise
  // mails are written as .eml files to DATA_DIR/outbox/ and their links logged.
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .refine((value) => /^smtps?:\/\/[^\s]+$/.test(value), 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_FROM: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .max(320)
      .refine((value) => !/[\r\n]/.test(value), 'must be one line')
      .default('Chat agent service <no-reply@localhost>'),
  ),
  BCRYPT_COST: z.preprocess(emptyToUndefined, z.coerce.number().int().min(4).max(15).default(12)),
  BODY_LIMIT_BYTES: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1024).default(1_048_576)),
  SYNC_BODY_LIMIT_BYTES: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1024).default(33_554_432),
  ),
  WP_THROTTLE_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100_000).default(60),
  ),
  DEMO_SEED: z.preprocess(
    emptyToUndefined,
    z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((value) => value === 'true' || value === '1'),
  ),
  WIDGET_DIST_DIR: optionalString,
  ADMIN_DIST_DIR: optionalString,
  TRUST_PROXY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(
        /^(?:true|false|[0-9a-fA-F.:/]+(?:\s*,\s*[0-9a-fA-F.:/]+)*)$/,
        'must be true, false, or a comma-separated list of proxy addresses/CIDRs',
      )
      .optional(),
  ),
  // Admin API per credential and minute. A person clicking through the console makes a few
  // requests a page: 300 a minute is five a second for a whole minute, which a runaway script
  // reaches and a person does not. Search, uploads, new sources and reindex fetch, parse or
  // embed (on the embedded store's one connection): 30 a minute of those, within the 300.
  ADMIN_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100_000).default(300),
  ),
  ADMIN_EXPENSIVE_RATE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(100_000).default(30),
  ),
  STORE_MAINTENANCE_INTERVAL_MINUTES: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(10_080).default(60),
  ),
  WIDGET_RATE_LIMIT_SCALE: z.preprocess(emptyToUndefined, z.coerce.number().min(0.01).max(10_000).default(1)),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  LOG_FORMAT: z.preprocess(emptyToUndefined, z.enum(['auto', 'json', 'pretty']).default('auto')),
  SHUTDOWN_TIMEOUT_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(100).default(25_000)),
  SHUTDOWN_DRAIN_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(600_000).default(0)),
  RUN_JOBS: z.preprocess(
    emptyToUndefined,
    z
      .enum(['true', 'false', '1', '0'])
      .default('true')
      .transform((value) => value === 'true' || value === '1'),
  ),
  // `cli worker`: the CPU priority (nice, 0-19) a worker-only process lowers itself to.
  WORKER_NICE: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(19).default(5)),
  // PostgreSQL: how long a running job stays leased without a renewal from its worker (queue/job-lease.ts).
  JOB_LEASE_SECONDS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(5).max(600).default(60)),
  // Seconds a handoff may wait unclaimed before the operators get a mail; 0 turns the mail off.
  HANDOFF_MAIL_AFTER_SECONDS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(86_400).default(120),
  ),
  CRAWL_DELAY_MS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(60_000).default(250)),
  BILLING_WEBHOOK_TOLERANCE_SECONDS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(3600).default(300),
  ),
  STRIPE_WEBHOOK_SECRET: optionalString,
  PAYPAL_WEBHOOK_ID: optionalString,
  PAYPAL_CLIENT_ID: optionalString,
  PAYPAL_CLIENT_SECRET: optionalString,
  PAYPAL_API_BASE: z.preprocess(emptyToUndefined, z.url().default('https://api-m.paypal.com')),
  PADDLE_WEBHOOK_SECRET: optionalString,
  EXTRACT_WORKERS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1).max(16).default(EXTRACTION_DEFAULTS.workers),
  ),
  EXTRACT_HEAP_MB: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(64).max(8192).default(EXTRACTION_DEFAULTS.heapMb),
  ),
  EXTRACT_TIMEOUT_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(1000).max(600_000).default(EXTRACTION_DEFAULTS.timeoutMs),
  ),
});

/** Decodes `base64:<data>` into 32 bytes, or null when it is not such a key. */
export function decodeAppKey(value: string): Buffer | null {
  const match = /^base64:([A-Za-z0-9+/]{43}=)$/.exec(value.trim());
  if (!match?.[1]) return null;
  const bytes = Buffer.from(match[1], 'base64');
  return bytes.length === 32 ? bytes : null;
}
