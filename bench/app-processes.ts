// The product as the end-to-end benches run it: the API in this process on an ephemeral port, and bin/worker.ts as a
// child process (so its memory and CPU are its own).
import { spawn, type ChildProcess } from 'node:child_process';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { buildApi } from '../api/bootstrap';
import type { AppConfig } from '../platform/config';

export interface ListeningApi {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** Stops listening, drops the open connections and closes the API's resources. */
  close(): Promise<void>;
}

/** The API (buildApi) listening on an ephemeral port of 127.0.0.1. */
export async function listenApi(config: AppConfig, log: Logger): Promise<ListeningApi> {
  const api = await buildApi(config, log);
  const server = await new Promise<http.Server>((resolve) => {
    const s = api.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      await api.close();
    },
  };
}

/**
 * bin/worker.ts as a child process with environment `env` and node flags `nodeArgs`; resolves once it polls (its log
 * says "worker running"), rejects if it exits before. Its later stdout goes to `onOutput` (drained without one).
 */
export async function startWorkerProcess(
  env: NodeJS.ProcessEnv,
  opts: { nodeArgs?: readonly string[]; onOutput?: (chunk: string) => void } = {},
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [...(opts.nodeArgs ?? []), '--import', 'tsx', path.join(__dirname, '../bin/worker.ts')],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      if (buf.includes('"worker running"')) resolve();
      if (buf.length > 100_000) buf = buf.slice(-10_000);
    });
    // Its log (stdout) says why it stopped: the last lines go with the error.
    child.once('exit', (code) =>
      reject(new Error(`worker exited with ${code}; its last output:\n${buf.slice(-3000)}`)),
    );
  });
  const { onOutput } = opts;
  if (onOutput) child.stdout!.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  else child.stdout!.resume();
  return child;
}
