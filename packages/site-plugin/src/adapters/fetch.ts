import type { PluginResponse, SitePlugin } from '../plugin.js';
import { contractError, isUnderPrefix, noRouteResponse, tooLargeResponse } from '../plugin-http.js';

// Fetch-API runtimes: Next.js route handlers, Remix/React Router actions, Hono, Deno, Bun,
// Cloudflare Workers. The body is read as raw bytes (never request.json()), with the cap
// enforced while reading.

/** A Fetch-API handler: a `Request` in, a `Response` out. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Mounts the plugin routes in a Fetch-API runtime. In Next.js (App Router):
 * `export const POST = fetchHandler(plugin)` in `app/wp-json/service/v1/[...route]/route.ts`.
 * A path outside the prefix gets a 404 envelope. Never throws (errors answer 500).
 */
export function fetchHandler<TCart>(plugin: SitePlugin<TCart>): FetchHandler {
  return async (request) => {
    try {
      const path = new URL(request.url).pathname;
      // Not ours: answer without reading the body.
      if (!isUnderPrefix(path, plugin.prefix)) return toResponse(noRouteResponse());
      const declared = Number(request.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > plugin.maxBodyBytes) {
        await request.body?.cancel().catch(() => {});
        return toResponse(tooLargeResponse(plugin.maxBodyBytes));
      }
      const body = await readLimited(request, plugin.maxBodyBytes);
      if (body === null) return toResponse(tooLargeResponse(plugin.maxBodyBytes));
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const answer = await plugin.handle({ method: request.method, path, headers, body });
      return toResponse(answer ?? noRouteResponse());
    } catch {
      return toResponse(contractError('internal_error'));
    }
  };
}

/** The body's bytes, or null as soon as more than `maxBodyBytes` arrived. */
async function readLimited(request: Request, maxBodyBytes: number): Promise<Uint8Array | null> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBodyBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function toResponse(answer: PluginResponse): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
