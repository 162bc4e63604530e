/** Tails of the lock chains, per owner (a pool) and key. */
const chains = new WeakMap<object, Map<number, Promise<void>>>();

/**
 * Runs `fn` once every earlier holder of (`owner`, `key`) in this process is done. On the
 * embedded store all connections share one backend session, where an advisory lock excludes
 * nobody (a session may take its own lock again), so startup and migrations take this one too.
 */
export async function withProcessLock<T>(owner: object, key: number, fn: () => Promise<T>): Promise<T> {
  let locks = chains.get(owner);
  if (!locks) {
    locks = new Map();
    chains.set(owner, locks);
  }
  const previous = locks.get(key) ?? Promise.resolve();
  let release = () => {};
  const current = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => current);
  locks.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(key) === tail) locks.delete(key);
  }
}
