import { chmod, unlink } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { ZServiceError } from '@service/contract';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { registerErrorHandling } from '../http/error-handler.js';
import { type CommandContext, DATA_COMMANDS, isDataCommand } from './commands.js';

/** The control socket under DATA_DIR through which the CLI reaches a running embedded service. */
export function controlSocketPath(dataDir: string): string {
  return join(dataDir, 'control.sock');
}

/** Longest Unix socket path Linux accepts (sun_path is 108 bytes, NUL included). */
const MAX_SOCKET_PATH = 107;

/**
 * Serves the CLI's data commands on a Unix socket only the service's user can open (0600).
 * Returns null (with a warning) when the path is too long for a Unix socket.
 */
export async function startControlServer(ctx: CommandContext, log: Logger): Promise<FastifyInstance | null> {
  const path = controlSocketPath(ctx.config.dataDir);
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) {
    log.warn(
      { path },
      'DATA_DIR path is too long for the CLI control socket; stop the service to use the CLI',
    );
    return null;
  }
  // We hold the DATA_DIR lock, so a socket file left here belongs to a process that died.
  await unlink(path).catch(() => {});
  const controlLog: FastifyBaseLogger = log.child({ component: 'control' });
  const server = Fastify({ loggerInstance: controlLog });
  registerErrorHandling(server);
  server.post<{ Params: { name: string }; Body: { args?: Record<string, unknown> } }>(
    '/commands/:name',
    async (req) => {
      const name = req.params.name;
      if (!isDataCommand(name)) throw new AppError('not_found', { message: `Unknown command ${name}.` });
      const args = req.body?.args ?? {};
      return { result: await DATA_COMMANDS[name](ctx, args) };
    },
  );
  await server.listen({ path });
  await chmod(path, 0o600);
  return server;
}

/** Raised by the client with the service's error envelope. */
export class ControlCommandError extends Error {
  constructor(
    message: string,
    readonly errors: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** Runs a data command inside the running service through its control socket. */
export function callControlServer(
  dataDir: string,
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const body = JSON.stringify({ args });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath: controlSocketPath(dataDir),
        path: `/commands/${encodeURIComponent(name)}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (
              res.statusCode === 200 &&
              typeof parsed === 'object' &&
              parsed !== null &&
              'result' in parsed
            ) {
              resolve(parsed.result);
              return;
            }
            const envelope = ZServiceError.safeParse(parsed);
            const message = envelope.success ? envelope.data.message : `failed with status ${res.statusCode}`;
            const errors = envelope.success ? envelope.data.errors : {};
            reject(new ControlCommandError(message, errors));
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('the running service did not answer in time')));
    req.on('error', (error) =>
      reject(
        new Error(
          `DATA_DIR is locked by another process, and its control socket does not answer (${error.message}). ` +
            'If no service is running, the lock is held from another machine: it expires 30 seconds after its owner stopped.',
        ),
      ),
    );
    req.end(body);
  });
}
