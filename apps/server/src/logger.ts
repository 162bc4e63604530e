import { type DestinationStream, type Logger, pino } from 'pino';

/** Paths never written to logs, whatever a log call passes. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-service-signature"]',
  'password',
  '*.password',
  'token',
  '*.token',
  'admin_token',
  '*.admin_token',
  'shopper_signing_secret',
  '*.shopper_signing_secret',
];

/** Whether `LOG_FORMAT` asks for readable lines: `pretty`, or `auto` when stdout is a terminal. */
export function wantsPrettyLog(format: 'auto' | 'json' | 'pretty', stdoutIsTty: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

/**
 * Readable lines on stdout (time, level, message, then the fields), written synchronously so a
 * crash loses nothing; colours only on a terminal. The formatter is loaded only when asked for.
 */
export async function prettyDestination(colorize: boolean): Promise<DestinationStream> {
  const { default: pinoPretty } = await import('pino-pretty');
  return pinoPretty({
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
}

/** The process logger: JSON lines (pino) unless given another destination, secrets redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
