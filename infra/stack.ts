import fs from 'node:fs';
import path from 'node:path';
import { resolveCodecSecrets, type CodecSecrets } from './codec-keys';
import { acquireStackLock, type StackLock } from './lock';
import { formatSeconds, stackLog, type LogFn } from './log';
import type { EmbeddedMeilisearchConfig, RunningMeilisearch } from './meilisearch';
import { DATA_DIR_MARKER, dataDirFor, type StackProfile } from './paths';
import { parsePort } from './ports';
import type { EmbeddedPostgresConfig, RunningPostgres } from './postgres';
import { describeExit, onStopSignals, type ManagedProcess, type ProcessExit } from './process';
import type { LaunchContext, RunningService, ServiceName } from './service';
import type { RunningTemporal, TemporalDevServerConfig } from './temporal';
import { resolveSecretsKey } from './secrets-key';
import { niceEnv } from '../platform/process-priority';

export type { StackProfile } from './paths';
export type { ServiceName } from './service';

export interface StackPorts {
  postgres: number;
  meilisearch: number;
  temporal: number;
  temporalUi: number;
}

interface ProfileDefaults {
  ports: StackPorts;
  /** Env var that overrides each port. */
  portEnv: Record<keyof StackPorts, string>;
  database: string;
  /** Throw-away data (tests) runs Postgres without fsync. */
  durable: boolean;
}

export const PROFILE_DEFAULTS: Record<StackProfile, ProfileDefaults> = {
  dev: {
    ports: { postgres: 54329, meilisearch: 7700, temporal: 7233, temporalUi: 8233 },
    portEnv: {
      postgres: 'CRM_PG_PORT',
      meilisearch: 'MEILI_PORT',
      temporal: 'TEMPORAL_PORT',
      temporalUi: 'TEMPORAL_UI_PORT',
    },
    database: 'crm',
    durable: true,
  },
  test: {
    ports: { postgres: 54339, meilisearch: 7710, temporal: 7243, temporalUi: 8243 },
    portEnv: {
      postgres: 'CRM_TEST_PG_PORT',
      meilisearch: 'CRM_TEST_MEILI_PORT',
      temporal: 'CRM_TEST_TEMPORAL_PORT',
      temporalUi: 'CRM_TEST_TEMPORAL_UI_PORT',
    },
    database: 'crm_test',
    durable: false,
  },
};

export interface StackConfig {
  profile: StackProfile;
  dataDir: string;
  ports: StackPorts;
  portEnv: Record<keyof StackPorts, string>;
  database: string;
  durable: boolean;
}

/** The connection settings the app reads. */
export interface StackEnv {
  DATABASE_URL: string;
  MEILI_URL: string;
  MEILI_MASTER_KEY: string;
  TEMPORAL_ADDRESS: string;
  TEMPORAL_NAMESPACE: string;
  TEMPORAL_UI_URL?: string;
  /** Payload encryption keys and codec server token (infra/codec-keys.ts), generated into the data folder. */
  TEMPORAL_PAYLOAD_KEYS?: string;
  TEMPORAL_CODEC_AUTH_TOKEN?: string;
  /** Key of credentials stored at rest; generated once into the data folder (infra/secrets-key.ts). */
  CRM_SECRETS_KEY: string;
  /** Local file storage folder (modules/files/settings.ts): `<data folder>/files` unless FILE_STORAGE_DIR is set. */
  FILE_STORAGE_DIR: string;
}

export type ServiceMode = 'embedded' | 'external';
export type StackPlan = Record<ServiceName, ServiceMode>;

export interface ServiceLaunchers {
  postgres(ctx: LaunchContext, config: EmbeddedPostgresConfig): Promise<RunningPostgres>;
  meilisearch(ctx: LaunchContext, config: EmbeddedMeilisearchConfig): Promise<RunningMeilisearch>;
  temporal(ctx: LaunchContext, config: TemporalDevServerConfig): Promise<RunningTemporal>;
}

export interface StartStackOptions {
  /** 'dev' (npm start; default) or 'test' (npm test): different default ports and data folder. */
  profile?: StackProfile;
  /** Where DATABASE_URL, MEILI_URL, TEMPORAL_ADDRESS and port overrides are read. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Overrides the profile's data folder (CRM_DATA_DIR / CRM_TEST_DATA_DIR). */
  dataDir?: string;
  /** Overrides ports (after env overrides). */
  ports?: Partial<StackPorts>;
  /**
   * Default true: SIGINT/SIGTERM stop the stack (or cancel its start-up) and exit the process.
   * Pass false when the caller orders its own shutdown (then use `signal` to cancel start-up).
   */
  handleSignals?: boolean;
  /** Aborting it cancels start-up: everything started so far is stopped and startStack rejects. */
  signal?: AbortSignal;
  log?: LogFn;
  /** Replaces how embedded services are started (tests). */
  launchers?: Partial<ServiceLaunchers>;
}

export interface ServiceDeath {
  service: ServiceName;
  exit: ProcessExit;
}

export interface RunningStack {
  readonly env: StackEnv;
  readonly config: StackConfig;
  readonly plan: StackPlan;
  /** Services this stack started (the others came from the env). */
  readonly started: readonly ServiceName[];
  /** Resolves if a started service exits on its own (never when stopped via stop()). */
  readonly died: Promise<ServiceDeath>;
  /** Stops every started service and releases the data-folder lock. Idempotent. */
  stop(): Promise<void>;
}

const SERVICE_NAMES: readonly ServiceName[] = ['postgres', 'meilisearch', 'temporal'];

/**
 * The embedded Temporal server's CPU priority (TEMPORAL_NICE, 0-19): 10 under `npm start`, where it shares the
 * machine with the API (requests first, the engine on the CPU left over, like the worker's WORKER_NICE); 0 for the
 * test profile, where the suites wait on it.
 */
export function temporalNice(env: NodeJS.ProcessEnv, profile: StackProfile): number {
  return niceEnv(env, 'TEMPORAL_NICE', profile === 'dev' ? 10 : 0);
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function resolveStackConfig(
  options: Pick<StartStackOptions, 'profile' | 'env' | 'dataDir' | 'ports'> = {},
): StackConfig {
  const profile = options.profile ?? 'dev';
  const env = options.env ?? process.env;
  const defaults = PROFILE_DEFAULTS[profile];
  const ports = { ...defaults.ports };
  for (const key of Object.keys(ports) as (keyof StackPorts)[]) {
    const name = defaults.portEnv[key];
    ports[key] = parsePort(env[name], name) ?? ports[key];
  }
  Object.assign(ports, options.ports);
  return {
    profile,
    dataDir: path.resolve(options.dataDir ?? dataDirFor(profile, env)),
    ports,
    portEnv: defaults.portEnv,
    database: defaults.database,
    durable: defaults.durable,
  };
}

/** Which services come from the env (external) and which we start (embedded). */
export function planStack(env: NodeJS.ProcessEnv = process.env): StackPlan {
  return {
    postgres: envValue(env, 'DATABASE_URL') ? 'external' : 'embedded',
    meilisearch: envValue(env, 'MEILI_URL') ? 'external' : 'embedded',
    temporal: envValue(env, 'TEMPORAL_ADDRESS') ? 'external' : 'embedded',
  };
}

const defaultLaunchers: ServiceLaunchers = {
  // Imported lazily: a stack with everything external never loads pg or the Temporal client.
  postgres: async (ctx, config) => (await import('./postgres')).startEmbeddedPostgres(ctx, config),
  meilisearch: async (ctx, config) => (await import('./meilisearch')).startEmbeddedMeilisearch(ctx, config),
  temporal: async (ctx, config) => (await import('./temporal')).startTemporalDevServer(ctx, config),
};

function prepareDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true });
  const marker = path.join(dataDir, DATA_DIR_MARKER);
  if (!fs.existsSync(marker)) {
    fs.writeFileSync(
      marker,
      'Data folder of the CRM dev/test stack (infra/stack.ts). Safe to delete when the stack is stopped.\n',
    );
  }
}

/**
 * Starts the embedded services the env does not already provide (in parallel) and returns the
 * env the app needs. Example:
 *
 *   const stack = await startStack({ profile: 'dev' });
 *   spawn('node', ['app.js'], { env: { ...process.env, ...stack.env } });
 *   await stack.stop();
 */
export async function startStack(options: StartStackOptions = {}): Promise<RunningStack> {
  const log = options.log ?? stackLog;
  const env = options.env ?? process.env;
  const config = resolveStackConfig(options);
  const plan = planStack(env);
  const launchers: ServiceLaunchers = { ...defaultLaunchers, ...options.launchers };
  const embedded = SERVICE_NAMES.filter((name) => plan[name] === 'embedded');
  const external = SERVICE_NAMES.filter((name) => plan[name] === 'external');

  const controller = new AbortController();
  const onExternalAbort = (): void => controller.abort();
  if (options.signal?.aborted) controller.abort();
  options.signal?.addEventListener('abort', onExternalAbort, { once: true });

  const tracked: { service: ServiceName; child: ManagedProcess }[] = [];
  const running: RunningService[] = [];
  let lock: StackLock | undefined;
  let stopping: Promise<void> | undefined;

  const stopAll = (): Promise<void> => {
    stopping ??= (async () => {
      controller.abort();
      const starting = tracked.filter(({ child }) => !child.hasExited()).map(({ service }) => service);
      const names = [...new Set([...running.map((service) => service.name), ...starting])];
      if (names.length > 0) log(`stopping ${names.join(', ')}…`);
      await Promise.allSettled(running.map((service) => service.stop()));
      // Anything spawned by a launcher that had not finished starting.
      await Promise.allSettled(tracked.map(({ child }) => child.stop(10_000)));
      lock?.release();
      removeSignalHandlers();
      options.signal?.removeEventListener('abort', onExternalAbort);
      if (names.length > 0) log('stopped');
    })();
    return stopping;
  };

  let removeSignalHandlers = (): void => undefined;
  if (options.handleSignals ?? true) {
    removeSignalHandlers = onStopSignals(
      log,
      () => Boolean(stopping),
      (signal, code) => {
        log(`${signal} received`);
        void stopAll().finally(() => process.exit(code));
      },
    );
  }

  let codec: Partial<CodecSecrets> = {
    TEMPORAL_PAYLOAD_KEYS: envValue(env, 'TEMPORAL_PAYLOAD_KEYS'),
    TEMPORAL_CODEC_AUTH_TOKEN: envValue(env, 'TEMPORAL_CODEC_AUTH_TOKEN'),
  };
  try {
    if (embedded.length > 0) {
      prepareDataDir(config.dataDir);
      lock = await acquireStackLock(config.dataDir, log);
      codec = resolveCodecSecrets(config.dataDir, env);
    }
  } catch (error) {
    removeSignalHandlers();
    throw error;
  }

  if (external.length > 0) log(`using ${external.join(', ')} from the environment`);
  if (embedded.length > 0) log(`starting ${embedded.join(', ')} (data: ${config.dataDir})`);
  const startedAt = Date.now();

  const ctx: LaunchContext = {
    log,
    signal: controller.signal,
    track(service, child, exe) {
      tracked.push({ service, child });
      lock?.recordChild(service, child.pid, exe);
      // Spawned just as start-up was cancelled: stopAll may already have gone through the list.
      if (controller.signal.aborted) void child.stop(10_000);
    },
  };

  let firstError: unknown;
  const launch = async <T extends RunningService>(
    name: ServiceName,
    start: () => Promise<T>,
  ): Promise<T | undefined> => {
    if (plan[name] === 'external') return undefined;
    try {
      const service = await start();
      running.push(service);
      return service;
    } catch (error) {
      // First failure cancels the others (no point building the Temporal CLI for a broken stack).
      firstError ??= error;
      controller.abort();
      throw error;
    }
  };

  const results = await Promise.allSettled([
    launch('postgres', () =>
      launchers.postgres(ctx, {
        dataDir: config.dataDir,
        port: config.ports.postgres,
        portEnvVar: config.portEnv.postgres,
        database: config.database,
        durable: config.durable,
      }),
    ),
    launch('meilisearch', () =>
      launchers.meilisearch(ctx, {
        dataDir: config.dataDir,
        port: config.ports.meilisearch,
        portEnvVar: config.portEnv.meilisearch,
        masterKey: envValue(env, 'MEILI_MASTER_KEY'),
      }),
    ),
    launch('temporal', () =>
      launchers.temporal(ctx, {
        dataDir: config.dataDir,
        port: config.ports.temporal,
        uiPort: config.ports.temporalUi,
        portEnvVar: config.portEnv.temporal,
        uiPortEnvVar: config.portEnv.temporalUi,
        namespace: envValue(env, 'TEMPORAL_NAMESPACE') ?? 'default',
        nice: temporalNice(env, config.profile),
        // npm start serves the codec from the API (api/http/codec-server.ts); test APIs use random ports.
        codecEndpoint:
          config.profile === 'dev' && codec.TEMPORAL_CODEC_AUTH_TOKEN
            ? `http://127.0.0.1:${envValue(env, 'PORT') ?? '3000'}/codec/${codec.TEMPORAL_CODEC_AUTH_TOKEN}`
            : undefined,
      }),
    ),
  ]);

  if (controller.signal.aborted || results.some((result) => result.status === 'rejected')) {
    await stopAll();
    if (firstError === undefined && options.signal?.aborted) throw new Error('stack start-up cancelled');
    throw firstError ?? new Error('stack start-up cancelled');
  }
  const [pg, meili, temporal] = results.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as [
    RunningPostgres | undefined,
    RunningMeilisearch | undefined,
    RunningTemporal | undefined,
  ];

  const stackEnv: StackEnv = {
    DATABASE_URL: pg?.databaseUrl ?? envValue(env, 'DATABASE_URL') ?? '',
    MEILI_URL: meili?.url ?? envValue(env, 'MEILI_URL') ?? '',
    MEILI_MASTER_KEY: meili?.masterKey ?? envValue(env, 'MEILI_MASTER_KEY') ?? '',
    TEMPORAL_ADDRESS: temporal?.address ?? envValue(env, 'TEMPORAL_ADDRESS') ?? '',
    TEMPORAL_NAMESPACE: temporal?.namespace ?? envValue(env, 'TEMPORAL_NAMESPACE') ?? 'default',
    CRM_SECRETS_KEY: resolveSecretsKey(config.dataDir, envValue(env, 'CRM_SECRETS_KEY')),
    FILE_STORAGE_DIR: envValue(env, 'FILE_STORAGE_DIR') ?? path.join(config.dataDir, 'files'),
  };
  const uiUrl = temporal?.uiUrl ?? envValue(env, 'TEMPORAL_UI_URL');
  if (uiUrl) stackEnv.TEMPORAL_UI_URL = uiUrl;
  if (codec.TEMPORAL_PAYLOAD_KEYS) stackEnv.TEMPORAL_PAYLOAD_KEYS = codec.TEMPORAL_PAYLOAD_KEYS;
  if (codec.TEMPORAL_CODEC_AUTH_TOKEN) stackEnv.TEMPORAL_CODEC_AUTH_TOKEN = codec.TEMPORAL_CODEC_AUTH_TOKEN;

  const died = new Promise<ServiceDeath>((resolve) => {
    for (const { service, child } of tracked) {
      void child.exited.then((exit) => {
        if (child.isStopping() || stopping) return;
        log(
          `${service} exited unexpectedly (${describeExit(exit)}); its log is in ${path.join(config.dataDir, 'logs')}`,
        );
        resolve({ service, exit });
      });
    }
  });

  if (embedded.length > 0) log(`stack ready in ${formatSeconds(Date.now() - startedAt)}`);
  return { env: stackEnv, config, plan, started: running.map((service) => service.name), died, stop: stopAll };
}
