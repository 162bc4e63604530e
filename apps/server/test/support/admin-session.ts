import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** `app.inject` with headers of the caller's choosing and, when given, a JSON body. */
export function sendAs(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** Posts a sign-in from `ip` (the limit counts attempts per email and address). */
export function postSignIn(
  app: FastifyInstance,
  body: unknown,
  ip: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/api/v1/admin/session',
    remoteAddress: ip,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
}

/** `sendAs` bound to the app a test file builds in `before` (read when called). */
export function senderFor(
  app: () => FastifyInstance,
): (
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
) => Promise<LightMyRequestResponse> {
  return (method, url, headers, body) => sendAs(app(), method, url, headers, body);
}
