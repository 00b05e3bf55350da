// Child process of bench/export.bench.ts: one side of the comparison per process, so each side's
// memory and CPU are its own. `server` runs the real API; `raw` streams the same rows with plain pg.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApi } from '../api/bootstrap';
import { loadConfig } from '../app/config';
import { createLogger } from '../platform/logger';

export type ChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'marked'; rss: number; exactPeak: boolean }
  | { type: 'peak'; peak: number }
  | { type: 'raw-ready'; backendPid: number }
  | { type: 'ran'; ms: number; rows: number };

const send = (message: ChildMessage): void => void process.send?.(message);

/** Resets the kernel's peak-RSS mark (VmHWM), so the next read covers only what follows. Linux only. */
function resetPeak(): boolean {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** Peak RSS in bytes since the last reset (VmHWM), else since process start (maxRSS). */
function peakRss(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) * 1024;
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS * 1024;
}

function mark(): { rss: number; exactPeak: boolean } {
  (globalThis as { gc?: () => void }).gc?.();
  const exactPeak = resetPeak();
  return { rss: process.memoryUsage().rss, exactPeak };
}

async function server(): Promise<void> {
  const config = loadConfig({
    ...process.env,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_DAY: '100000000',
    LOG_LEVEL: 'warn',
  });
  const runtime = await buildApi(config, createLogger('warn', 'bench-api'));
  const listener = runtime.app.listen(0, '127.0.0.1', () =>
    send({ type: 'ready', port: (listener.address() as AddressInfo).port }),
  );
  process.on('message', (message: { type: string }) => {
    if (message.type === 'mark') send({ type: 'marked', ...mark() });
    if (message.type === 'peak') send({ type: 'peak', peak: peakRss() });
    if (message.type === 'stop') {
      listener.close();
      listener.closeAllConnections?.();
      void runtime.close().then(() => process.exit(0));
    }
  });
}

/** Streams the rows (row events, nothing kept) and reports the wall time of each run. */
function streamOnce(client: pg.Client, sql: string, params: unknown[]): Promise<{ ms: number; rows: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let rows = 0;
    const query = client.query(new pg.Query(sql, params));
    query.on('row', () => {
      rows++;
    });
    query.on('error', reject);
    query.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, rows }));
  });
}

/**
 * Streams the rows once per `run` message (the bench alternates it with an export), after the same
 * memory mark as the export side (`mark` before the first big read, `peak` at the end).
 */
async function raw(databaseUrl: string, workspaceId: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  process.on('message', (message: { type: string }) => {
    if (message.type === 'mark') send({ type: 'marked', ...mark() });
    if (message.type === 'peak') send({ type: 'peak', peak: peakRss() });
    if (message.type === 'run')
      void streamOnce(client, sql, [workspaceId]).then(
        (r) => send({ type: 'ran', ...r }),
        (error: unknown) => {
          process.stderr.write(`[bench child raw] ${String(error)}\n`);
          process.exit(1);
        },
      );
    if (message.type === 'stop') void client.end().then(() => process.exit(0));
  });
  send({ type: 'raw-ready', backendPid: rows[0]!.pid });
}

const [mode, ...args] = process.argv.slice(2);
const run = mode === 'server' ? server() : raw(args[0]!, args[1]!, args[2]!);
run.catch((error: unknown) => {
  process.stderr.write(`[bench child ${mode}] ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
