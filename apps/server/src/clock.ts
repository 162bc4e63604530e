/**
 * The service's one source of "now". It is made once at boot (`service.ts`) and reaches every
 * service call through its `TenantScope`, the job context or an explicit argument, so a test
 * pins time by handing the app another clock. Services and chat/ never read the system clock
 * themselves (`scripts/check-layers.mjs` fails on `new Date()` and `Date.now()` there).
 */
export type Clock = {
  /** The current instant (a fresh Date each call: callers may keep it). */
  now(): Date;
};

/** The system's clock: what the running service uses. */
export const systemClock: Clock = { now: () => new Date() };
