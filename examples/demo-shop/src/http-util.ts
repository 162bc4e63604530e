// Small node:http helpers: cookies, capped form bodies, the same-origin check and the security
// headers every shop response carries.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The shop's session cookie. */
export const SESSION_COOKIE = 'shop_session';

/** Largest form body the shop reads (its forms are a few fields). */
export const MAX_FORM_BYTES = 4 * 1024;

/** The cookies of a `Cookie` header (first value wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
    } catch {
      // A malformed %-escape: ignore that cookie, not the whole header.
    }
  }
  return cookies;
}

/** The `Set-Cookie` value of the session cookie; an empty id expires it. */
export function sessionCookie(id: string, isSecure: boolean): string {
  const lifetime = id === '' ? 'Max-Age=0' : 'Max-Age=2592000';
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax; ${lifetime}${isSecure ? '; Secure' : ''}`;
}

/** A read form body, or why it was refused. */
export type FormResult = { form: URLSearchParams } | { status: 413 | 415; message: string };

/** Reads an `application/x-www-form-urlencoded` body of at most `maxBytes`, enforced while reading. */
export async function readForm(req: IncomingMessage, maxBytes = MAX_FORM_BYTES): Promise<FormResult> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    return { status: 415, message: 'Send the form as application/x-www-form-urlencoded.' };
  }
  if (Number(req.headers['content-length'] ?? 0) > maxBytes) {
    req.resume();
    return { status: 413, message: 'The form is too large.' };
  }
  const body = await readLimited(req, maxBytes);
  if (body === null) return { status: 413, message: 'The form is too large.' };
  return { form: new URLSearchParams(body.toString('utf8')) };
}

/** The body, or null once more than `maxBytes` arrived (the rest is drained, not buffered). */
function readLimited(req: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: unknown) => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      total += buffer.byteLength;
      if (total > maxBytes) {
        // Stop buffering but keep draining, so the 413 can still reach the client.
        req.off('data', onData);
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(buffer);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * A light CSRF defence for the shop's POST forms: when the browser sends `Origin` (every modern
 * browser does on a cross-site POST), it must be the shop's own origin. A request without
 * `Origin` (curl, very old browsers) passes; the session cookie is also `SameSite=Lax`, so a
 * cross-site POST does not carry it in the first place. A real shop would add CSRF tokens.
 */
export function isSameOriginPost(req: IncomingMessage, origin: string): boolean {
  const given = req.headers.origin;
  return given === undefined || given === origin;
}

/** The Content-Security-Policy: no inline scripts or styles; scripts and calls only to the service. */
export function contentSecurityPolicy(serviceOrigin: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${serviceOrigin}`,
    `connect-src ${serviceOrigin}`,
    "style-src 'self'",
    "img-src 'self' data: https:",
  ].join('; ');
}

/** Writes a complete answer with the security headers. */
export function send(
  res: ServerResponse,
  answer: { status: number; headers?: Record<string, string | string[]>; body?: string | Buffer },
  csp: string,
): void {
  res.statusCode = answer.status;
  res.setHeader('content-security-policy', csp);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'strict-origin-when-cross-origin');
  res.setHeader('x-frame-options', 'DENY');
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.end(answer.body ?? '');
}
