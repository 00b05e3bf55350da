import { buildApi } from '../api/bootstrap';
import { loadConfig } from '../app/config';
import { batchedDestination, createLogger } from '../platform/logger';

async function main(): Promise<void> {
  const config = loadConfig();
  // Asynchronous stdout in batches (domain/logger.ts): the request log line never blocks the event loop in
  // write(2), and one write carries many lines; pino flushes what is left when the process exits.
  const log = createLogger(config.logLevel, 'api', batchedDestination(1));
  const runtime = await buildApi(config, log);
  const server = runtime.app.listen(config.port, () =>
    log.info({ port: config.port }, `API listening on http://127.0.0.1:${config.port}`),
  );
  const stop = (signal: string): void => {
    log.info({ signal }, 'shutting down API');
    server.close(() => void runtime.close().then(() => process.exit(0)));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`[api] failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
