import type { IncomingMessage } from 'node:http';
import { newId } from '../security/ids.js';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Request ids: an incoming `X-Request-Id` is kept when it is short and plain (so a proxy's
 * id follows the request through our logs); anything else gets a fresh ULID.
 */
export function generateRequestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : newId();
}
