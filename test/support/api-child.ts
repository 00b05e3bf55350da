// The API in a process of its own (support/api-process.ts), as production runs it: for tests whose client and the
// API must not share one event loop (timing under load). The env is the test's, plus API_CHILD_ENV (JSON).
// Prints "listening <baseUrl>" once it accepts connections; SIGTERM closes it.
import { startTestApp } from './app';

async function main(): Promise<void> {
  const env = JSON.parse(process.env.API_CHILD_ENV ?? '{}') as Record<string, string>;
  const app = await startTestApp(env);
  process.once('SIGTERM', () => {
    void app.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  });
  process.stdout.write(`listening ${app.baseUrl}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`[api-child] failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
