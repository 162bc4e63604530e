// Calls to the plugin routes on a harness WordPress (`/wp-json/service/v1/<route>`), signed as
// the service signs them (X-Service-Signature over "<t>.<raw body>" with the handshake's
// shopper signing secret), or broken on purpose.
import { signRequest } from '@service/contract';
import type { WordPress } from './wordpress.js';

/** Unix seconds of the system clock. */
export const unixNow = () => Math.floor(Date.now() / 1000);

export type PluginCall = {
  /** The signing key (default: the secret given to `pluginClient`). */
  secret?: string;
  /** The signature's `t` (default: now). */
  timestamp?: number;
  /** A verbatim header; null sends none. */
  header?: string | null;
  /** The raw body (default: JSON of the payload). */
  raw?: string;
};

export type PluginAnswer = { status: number; json: Record<string, unknown>; headers: Headers };

/** A client for the plugin routes of `wp`, signing with `secret()` (read at each call). */
export function pluginClient(wp: WordPress, secret: () => string) {
  return async (route: string, payload: unknown, call: PluginCall = {}): Promise<PluginAnswer> => {
    const raw = call.raw ?? JSON.stringify(payload);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const header =
      call.header !== undefined
        ? call.header
        : signRequest(call.secret ?? secret(), raw, call.timestamp ?? unixNow());
    if (header !== null) headers['x-service-signature'] = header;
    const response = await fetch(`${wp.url}/wp-json/service/v1/${route}`, {
      method: 'POST',
      headers,
      body: raw,
    });
    const text = await response.text();
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new Error(`${route} answered ${response.status} with no JSON: ${text.slice(0, 500)}`);
    }
    return { status: response.status, json, headers: response.headers };
  };
}

/** `json.error.code` of an answer. */
export function errorCode(answer: PluginAnswer): unknown {
  const error = answer.json.error as { code?: unknown } | undefined;
  return error?.code ?? answer.json.code;
}
