import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config/config.js';
import { AppError } from '../errors/app-error.js';

/** One named limit: `points` requests per `durationSeconds`, per key. */
export type Limit = { keyPrefix: string; points: number; durationSeconds: number };

/** Per minute: init per IP + agent, coupon IP per IP, the rest per widget token (its visitor). */
export const WIDGET_LIMITS = {
  init: 60,
  messages: 30,
  leads: 5,
  events: 60,
  typing: 600,
  satisfaction: 60,
  couponToken: 120,
  couponIp: 30,
  // Not in the contract's table; generous enough for the widget, tight enough against floods.
  poll: 120,
  session: 30,
} as const;

/** Sign-in attempts per minute for one email from one client address. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 5;

/** Password-reset requests an hour for one email address, and from one client address. */
export const PASSWORD_RESET_LIMITS = { perEmailPerHour: 5, perIpPerHour: 20 } as const;

/** The name of one widget limit. */
export type WidgetLimitName = keyof typeof WIDGET_LIMITS;

/** A limiter that throws a 429 AppError (with Retry-After) when a key is over its limit. */
export type RateLimiter = { consume(key: string): Promise<void> };

/** The limiters of every surface, and how to close their store. */
export type RateLimits = {
  wpIntegration: RateLimiter;
  /** Admin sign-in: 5 attempts a minute per email and client address (contract, "login"). */
  login: RateLimiter;
  /** Password-reset requests: per email address and per client address, an hour each. */
  passwordResetEmail: RateLimiter;
  passwordResetIp: RateLimiter;
  /**
   * Admin API, keyed per credential (`token:<id>` or `session:<id>`, never a secret): every
   * authenticated request, and the expensive ones (search, uploads, new sources, reindex) again.
   */
  admin: RateLimiter;
  adminExpensive: RateLimiter;
  /** Widget surface limits (contract, "Rate limits on public surfaces"). */
  widget: Readonly<Record<WidgetLimitName, RateLimiter>>;
  /** Resolves once Redis is connected (or at once without Redis, or after `timeoutMs` if it is down). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

/** Where the Redis state changes of the limiters are logged. */
export type RedisStateLog = { warn(msg: string): void; info(msg: string): void };

/**
 * A Redis outage must not crash the process (an 'error' listener), and the insurance limiter
 * takes over: counts are then per instance, which is logged once at warn level when Redis is
 * lost and once at info level when it is back (shared counting again).
 */
function watchRedis(redis: Redis, log: RedisStateLog | undefined): void {
  let lost = false;
  const down = (reason: string) => {
    if (lost) return;
    lost = true;
    log?.warn(`rate limits: Redis is unreachable (${reason}); counting per instance until it is back`);
  };
  redis.on('error', (error: Error) => down(error.message || 'connection error'));
  redis.on('close', () => down('connection closed'));
  redis.on('ready', () => {
    if (!lost) return;
    lost = false;
    log?.info('rate limits: Redis is back; counting shared between instances again');
  });
}

/** The Redis client class, loaded only when REDIS_URL is set (most single instances have no Redis). */
function redisClass(): typeof Redis {
  const loaded: typeof import('ioredis') = createRequire(import.meta.url)('ioredis');
  return loaded.Redis;
}

/**
 * Builds the limiters: in-process memory by default; Redis (shared by every instance) when
 * REDIS_URL is set, with an in-memory insurance limiter if Redis is unreachable.
 */
export function createRateLimits(config: Config, log?: RedisStateLog): RateLimits {
  const redis = config.redisUrl
    ? new (redisClass())(config.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        lazyConnect: false,
      })
    : null;
  if (redis) watchRedis(redis, log);
  const build = (limit: Limit): RateLimiter => {
    const memory = new RateLimiterMemory({
      keyPrefix: limit.keyPrefix,
      points: limit.points,
      duration: limit.durationSeconds,
    });
    const limiter = redis
      ? new RateLimiterRedis({
          storeClient: redis,
          keyPrefix: `svc:rl:${limit.keyPrefix}`,
          points: limit.points,
          duration: limit.durationSeconds,
          insuranceLimiter: memory,
        })
      : memory;
    return {
      async consume(key) {
        try {
          await limiter.consume(key);
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes) {
            throw new AppError('rate_limited', {
              retryAfter: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
            });
          }
          throw rejection;
        }
      },
    };
  };
  const perMinute = (name: WidgetLimitName) =>
    build({
      keyPrefix: `widget-${name}`,
      points: Math.max(1, Math.round(WIDGET_LIMITS[name] * config.widgetRateLimitScale)),
      durationSeconds: 60,
    });
  return {
    wpIntegration: build({ keyPrefix: 'wp', points: config.wpThrottlePerMinute, durationSeconds: 60 }),
    login: build({ keyPrefix: 'login', points: LOGIN_ATTEMPTS_PER_MINUTE, durationSeconds: 60 }),
    passwordResetEmail: build({
      keyPrefix: 'reset-email',
      points: PASSWORD_RESET_LIMITS.perEmailPerHour,
      durationSeconds: 3600,
    }),
    passwordResetIp: build({
      keyPrefix: 'reset-ip',
      points: PASSWORD_RESET_LIMITS.perIpPerHour,
      durationSeconds: 3600,
    }),
    admin: build({ keyPrefix: 'admin', points: config.adminRateLimitPerMinute, durationSeconds: 60 }),
    adminExpensive: build({
      keyPrefix: 'admin-expensive',
      points: config.adminExpensiveRateLimitPerMinute,
      durationSeconds: 60,
    }),
    widget: Object.freeze({
      init: perMinute('init'),
      messages: perMinute('messages'),
      leads: perMinute('leads'),
      events: perMinute('events'),
      typing: perMinute('typing'),
      satisfaction: perMinute('satisfaction'),
      couponToken: perMinute('couponToken'),
      couponIp: perMinute('couponIp'),
      poll: perMinute('poll'),
      session: perMinute('session'),
    }),
    async ready(timeoutMs = 2_000) {
      if (!redis || redis.status === 'ready') return;
      // Until Redis answers, counts go to the in-memory insurance limiter only; waiting at start
      // keeps the first requests counted where every instance sees them.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeoutMs);
        function done() {
          clearTimeout(timer);
          redis?.off('ready', done);
          resolve();
        }
        redis.once('ready', done);
      });
    },
    async close() {
      if (!redis) return;
      // Closing on purpose is no outage to report.
      redis.removeAllListeners('close');
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
