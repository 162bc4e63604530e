import { ERROR_CODES } from '@service/contract';

// The framework-neutral request and answer of the plugin routes, and the plugin envelope
// (contract "Errors"): `{data: …}` on success, `{error: {code, message}}` otherwise. Every
// answer is JSON and `no-store`: it is per shopper and must never sit in a shared cache.

/** A request as an adapter hands it to the plugin; `body` is the raw bytes, unparsed. */
export type PluginRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array | string;
};

/** An answer of the plugin; `body` is the JSON text. */
export type PluginResponse = { status: number; headers: Record<string, string>; body: string };

/** Request bodies larger than this get 413 unless `maxBodyBytes` says otherwise (64 KiB). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

const encoder = new TextEncoder();

function jsonResponse(status: number, payload: unknown): PluginResponse {
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=UTF-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
    body: JSON.stringify(payload),
  };
}

/** A 200 answer carrying `{data}`. */
export function dataResponse(data: unknown): PluginResponse {
  return jsonResponse(200, { data });
}

/** An error answer in the plugin envelope. */
export function errorResponse(status: number, code: string, message: string): PluginResponse {
  return jsonResponse(status, { error: { code, message } });
}

/** The error codes the plugin shares with the service's table (status and message from there). */
export type SharedPluginErrorCode =
  | 'missing_signature'
  | 'plugin_unconfigured'
  | 'signature_mismatch'
  | 'invalid_coupon'
  | 'commerce_inactive'
  | 'payload_too_large'
  | 'internal_error';

/** An error answer for a code of the contract's error table, with its status and message. */
export function contractError(code: SharedPluginErrorCode): PluginResponse {
  const entry = ERROR_CODES[code];
  return errorResponse(entry.status, code, entry.message);
}

/** 404 `rest_no_route`, as WordPress answers a path or method it does not know. */
export function noRouteResponse(): PluginResponse {
  return errorResponse(404, 'rest_no_route', 'No route was found matching the URL and request method.');
}

/** 413 `payload_too_large` naming the cap. */
export function tooLargeResponse(maxBodyBytes: number): PluginResponse {
  return errorResponse(413, 'payload_too_large', `The request body is larger than ${maxBodyBytes} bytes.`);
}

/** A header by name, case-insensitively; repeated values are joined as HTTP would fold them. */
export function readHeader(headers: PluginRequest['headers'], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

/** The size of a raw body in bytes (a string counts as its UTF-8 encoding). */
export function byteLength(body: Uint8Array | string): number {
  return typeof body === 'string' ? encoder.encode(body).byteLength : body.byteLength;
}

/** Decodes a raw body as UTF-8 JSON; `undefined` for invalid UTF-8 or invalid JSON. */
export function parseJsonBody(body: Uint8Array | string): { value: unknown } | undefined {
  try {
    const text = typeof body === 'string' ? body : new TextDecoder('utf-8', { fatal: true }).decode(body);
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The path without its query string or fragment. */
export function pathOnly(path: string): string {
  const end = path.search(/[?#]/);
  return end === -1 ? path : path.slice(0, end);
}

/** Whether a path is under the plugin prefix (the prefix without its final slash counts too). */
export function isUnderPrefix(path: string, prefix: string): boolean {
  return path.startsWith(prefix) || path === prefix.slice(0, -1);
}
