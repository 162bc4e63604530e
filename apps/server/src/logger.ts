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

/** The process logger: JSON lines (pino), secrets redacted. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}
