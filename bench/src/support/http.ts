/** Serving the apps under load on a local port, and checking their answers. */
import type { FastifyInstance } from 'fastify';

/** Listens on a free port of 127.0.0.1 and returns the base URL. */
export async function listenLocal(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('expected a TCP address');
  return `http://127.0.0.1:${address.port}`;
}

/** Whether `value` is an object with `key`, narrowed so that key can be read. */
export function hasKey<K extends string>(value: unknown, key: K): value is Record<K, unknown> {
  return typeof value === 'object' && value !== null && key in value;
}
