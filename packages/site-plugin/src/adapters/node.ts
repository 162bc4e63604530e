import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PluginResponse, SitePlugin } from '../plugin.js';
import {
  contractError,
  errorResponse,
  isUnderPrefix,
  noRouteResponse,
  pathOnly,
  tooLargeResponse,
} from '../plugin-http.js';

// node:http and Express (connect-style middleware). The signature covers the raw bytes, so the
// SDK must see them: mount it BEFORE any body parser (express.json() and friends), or give it the
// raw form (`req.rawBody`, or `req.body` as a Buffer or string, e.g. from express.raw()).

/** `next` of connect-style middleware (Express): called when the path is not a plugin path. */
export type NodeNext = (error?: unknown) => void;

/** A node:http request listener that is also Express middleware. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: NodeNext) => void;

/** The 500 message when only a parsed body is left: the raw bytes are gone, nothing can verify. */
export const BODY_PARSED_MESSAGE =
  'The request body was already parsed, so its signature cannot be checked: mount the service ' +
  'plugin before any body parser (e.g. before express.json()).';

/**
 * Mounts the plugin routes on node:http (`createServer(nodeHandler(plugin))`) or Express
 * (`app.use(nodeHandler(plugin))`, before body parsers). A path outside the prefix goes to
 * `next()` when given, else 404. Reads the body with the plugin's byte cap. Never throws.
 */
export function nodeHandler<TCart>(plugin: SitePlugin<TCart>): NodeHandler {
  return (req, res, next) => {
    serve(plugin, req, res, next).catch(() => {
      safeSend(res, contractError('internal_error'));
    });
  };
}

async function serve<TCart>(
  plugin: SitePlugin<TCart>,
  req: IncomingMessage,
  res: ServerResponse,
  next: NodeNext | undefined,
): Promise<void> {
  // Express strips a mount path from req.url; originalUrl keeps the full path.
  const url =
    'originalUrl' in req && typeof req.originalUrl === 'string' ? req.originalUrl : (req.url ?? '/');
  const path = pathOnly(url);
  if (!isUnderPrefix(path, plugin.prefix)) {
    // Leave the stream untouched: the next handler may need the body.
    if (next) next();
    else send(res, noRouteResponse());
    return;
  }
  const body = await rawBodyOf(req, plugin.maxBodyBytes);
  if ('response' in body) {
    send(res, body.response, body.closeConnection);
    return;
  }
  const answer = await plugin.handle({
    method: req.method ?? 'GET',
    path: url,
    headers: req.headers,
    body: body.bytes,
  });
  send(res, answer ?? noRouteResponse());
}

type RawBody = { bytes: Uint8Array | string } | { response: PluginResponse; closeConnection: boolean };

async function rawBodyOf(req: IncomingMessage, maxBodyBytes: number): Promise<RawBody> {
  // A body parser ran before us: use the raw form it left, if any.
  if ('rawBody' in req && (Buffer.isBuffer(req.rawBody) || typeof req.rawBody === 'string')) {
    return { bytes: req.rawBody };
  }
  if ('body' in req && (Buffer.isBuffer(req.body) || typeof req.body === 'string')) {
    return { bytes: req.body };
  }
  // A parser consumed the stream (leaving, say, a parsed object): the exact bytes are gone. A
  // parser that skipped the request (other content type) left the stream unread: read it.
  if (req.readableEnded) {
    return { response: errorResponse(500, 'internal_error', BODY_PARSED_MESSAGE), closeConnection: false };
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBodyBytes) return tooLarge(req, maxBodyBytes);
  const bytes = await readLimited(req, maxBodyBytes);
  return bytes === null ? tooLarge(req, maxBodyBytes) : { bytes };
}

function tooLarge(req: IncomingMessage, maxBodyBytes: number): RawBody {
  // Discard the rest without buffering it: destroying the request would also kill the socket
  // before the 413 reaches the client. The connection is closed after the answer.
  req.on('error', () => {});
  req.resume();
  return { response: tooLargeResponse(maxBodyBytes), closeConnection: true };
}

/** The body's bytes, or null as soon as more than `maxBodyBytes` arrived (enforced while reading). */
function readLimited(req: IncomingMessage, maxBodyBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: unknown): void => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      total += buffer.byteLength;
      if (total > maxBodyBytes) {
        cleanup();
        resolve(null);
        return;
      }
      chunks.push(buffer);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: unknown): void => {
      cleanup();
      reject(error);
    };
    const onClose = (): void => {
      cleanup();
      reject(new Error('The request was aborted before its body ended.'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function send(res: ServerResponse, answer: PluginResponse, closeConnection = false): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  // The rest of an over-long body is not read; the connection cannot be reused after it.
  if (closeConnection) res.setHeader('connection', 'close');
  res.end(answer.body);
}

function safeSend(res: ServerResponse, answer: PluginResponse): void {
  try {
    send(res, answer);
  } catch {
    res.destroy();
  }
}
