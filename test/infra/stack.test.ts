import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { LOCK_FILE_NAME, StackLockedError } from '../../infra/lock';
import type { RunningMeilisearch } from '../../infra/meilisearch';
import { repoRoot } from '../../infra/paths';
import type { RunningPostgres } from '../../infra/postgres';
import { CRM_SEARCH_ATTRIBUTE_NAMES, searchAttributeCliArgs } from '../../infra/search-attributes';
import { planStack, resolveStackConfig, startStack, temporalNice, type ServiceLaunchers } from '../../infra/stack';
import { temporalDevServerArgs, type RunningTemporal } from '../../infra/temporal';

const quiet = (): void => undefined;

/** Launchers that start nothing and record what they were asked to start. */
function fakeLaunchers(calls: string[], stopped: string[] = []): ServiceLaunchers {
  /** The service `name`, recorded as started, with no processes and a stop that records itself. */
  const started = <T>(name: string, fields: Omit<T, 'name' | 'processes' | 'stop'>): T => {
    calls.push(name);
    return { name, processes: [], ...fields, stop: async () => void stopped.push(name) } as T;
  };
  return {
    postgres: async (_ctx, config) =>
      started<RunningPostgres>('postgres', {
        databaseUrl: `postgres://fake@127.0.0.1:${config.port}/${config.database}`,
      }),
    meilisearch: async (_ctx, config) =>
      started<RunningMeilisearch>('meilisearch', {
        url: `http://127.0.0.1:${config.port}`,
        masterKey: config.masterKey ?? 'generated-key',
      }),
    temporal: async (_ctx, config) =>
      started<RunningTemporal>('temporal', {
        address: `127.0.0.1:${config.port}`,
        uiUrl: `http://127.0.0.1:${config.uiPort}`,
        namespace: config.namespace,
      }),
  };
}

let dataDir: string;
beforeEach(() => {
  // Under the repository's ignored .data folder: `npm test` writes nothing outside the clone.
  const base = path.join(repoRoot, '.data', 'tmp');
  fs.mkdirSync(base, { recursive: true });
  dataDir = fs.mkdtempSync(path.join(base, 'crm-stack-test-'));
});
afterEach(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('planStack', () => {
  it.each([
    [{}, { postgres: 'embedded', meilisearch: 'embedded', temporal: 'embedded' }],
    [{ DATABASE_URL: 'postgres://x@db/crm' }, { postgres: 'external', meilisearch: 'embedded', temporal: 'embedded' }],
    [{ MEILI_URL: 'http://search:7700' }, { postgres: 'embedded', meilisearch: 'external', temporal: 'embedded' }],
    [{ TEMPORAL_ADDRESS: 'temporal:7233' }, { postgres: 'embedded', meilisearch: 'embedded', temporal: 'external' }],
    [{ DATABASE_URL: '  ' }, { postgres: 'embedded', meilisearch: 'embedded', temporal: 'embedded' }],
    // a key alone is the key for the embedded Meilisearch, not an external one
    [{ MEILI_MASTER_KEY: 'k' }, { postgres: 'embedded', meilisearch: 'embedded', temporal: 'embedded' }],
  ])('env %j → %j', (env, expected) => {
    expect(planStack(env)).toEqual(expected);
  });
});

describe('resolveStackConfig', () => {
  it('uses the dev defaults', () => {
    const config = resolveStackConfig({ env: {} });
    expect(config.ports).toEqual({ postgres: 54329, meilisearch: 7700, temporal: 7233, temporalUi: 8233 });
    expect(config.dataDir).toBe(path.join(repoRoot, '.data'));
    expect(config.durable).toBe(true);
  });

  it('uses other ports and .data/test for the test profile, so both stacks can run at once', () => {
    const config = resolveStackConfig({ profile: 'test', env: {} });
    expect(config.ports).toEqual({ postgres: 54339, meilisearch: 7710, temporal: 7243, temporalUi: 8243 });
    expect(config.dataDir).toBe(path.join(repoRoot, '.data', 'test'));
    expect(config.database).not.toBe(resolveStackConfig({ env: {} }).database);
  });

  it('reads port and data folder overrides from the env', () => {
    const config = resolveStackConfig({
      env: {
        CRM_PG_PORT: '6000',
        MEILI_PORT: '6001',
        TEMPORAL_PORT: '6002',
        TEMPORAL_UI_PORT: '6003',
        CRM_DATA_DIR: '/tmp/x',
      },
    });
    expect(config.ports).toEqual({ postgres: 6000, meilisearch: 6001, temporal: 6002, temporalUi: 6003 });
    expect(config.dataDir).toBe('/tmp/x');
    expect(resolveStackConfig({ profile: 'test', env: { CRM_DATA_DIR: '/tmp/x' } }).dataDir).toBe('/tmp/x/test');
  });

  it.each(['abc', '0', '70000', '1.5'])('rejects the port %j', (value) => {
    expect(() => resolveStackConfig({ env: { CRM_PG_PORT: value } })).toThrow(/CRM_PG_PORT/);
  });
});

describe('startStack', () => {
  it('starts nothing and takes no lock when the env provides every service', async () => {
    const calls: string[] = [];
    const env = {
      DATABASE_URL: 'postgres://u:p@db:5432/crm',
      MEILI_URL: 'http://search:7700',
      MEILI_MASTER_KEY: 'secret',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'crm',
      CRM_SECRETS_KEY: 'a'.repeat(64),
    };
    const stack = await startStack({ env, dataDir, handleSignals: false, log: quiet, launchers: fakeLaunchers(calls) });
    expect(calls).toEqual([]);
    expect(stack.started).toEqual([]);
    // Local file storage defaults to the data folder (FILE_STORAGE_DIR), whatever else the env provides.
    expect(stack.env).toEqual({ ...env, FILE_STORAGE_DIR: path.join(dataDir, 'files') });
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
    await stack.stop();
  });

  it('does not use the postgres launcher when DATABASE_URL is given', async () => {
    const calls: string[] = [];
    const stopped: string[] = [];
    const stack = await startStack({
      env: { DATABASE_URL: 'postgres://u:p@db:5432/crm' },
      dataDir,
      handleSignals: false,
      log: quiet,
      launchers: fakeLaunchers(calls, stopped),
    });
    expect(calls.sort()).toEqual(['meilisearch', 'temporal']);
    expect(stack.env).toEqual({
      DATABASE_URL: 'postgres://u:p@db:5432/crm',
      MEILI_URL: 'http://127.0.0.1:7700',
      MEILI_MASTER_KEY: 'generated-key',
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
      TEMPORAL_PAYLOAD_KEYS: expect.stringMatching(/^k1:[A-Za-z0-9+/]{43}=$/),
      TEMPORAL_CODEC_AUTH_TOKEN: expect.stringMatching(/^[0-9a-f]{48}$/),
      CRM_SECRETS_KEY: expect.stringMatching(/^[0-9a-f]{64}$/),
      FILE_STORAGE_DIR: path.join(dataDir, 'files'),
    });
    expect(fs.readFileSync(path.join(dataDir, 'secrets-key'), 'utf8').trim()).toBe(stack.env.CRM_SECRETS_KEY);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(true);
    await stack.stop();
    expect(stopped.sort()).toEqual(['meilisearch', 'temporal']);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
  });

  it('passes MEILI_MASTER_KEY and TEMPORAL_NAMESPACE to the embedded services', async () => {
    const stack = await startStack({
      env: { MEILI_MASTER_KEY: 'my-key', TEMPORAL_NAMESPACE: 'crm-dev' },
      dataDir,
      handleSignals: false,
      log: quiet,
      launchers: fakeLaunchers([]),
    });
    expect(stack.env.MEILI_MASTER_KEY).toBe('my-key');
    expect(stack.env.TEMPORAL_NAMESPACE).toBe('crm-dev');
    await stack.stop();
  });

  it('generates the Temporal payload key and codec token once and wires the dev UI to the codec server', async () => {
    const seen: (string | undefined)[] = [];
    const launchers = fakeLaunchers([]);
    const temporal = launchers.temporal;
    launchers.temporal = (ctx, config) => {
      seen.push(config.codecEndpoint);
      return temporal(ctx, config);
    };
    const first = await startStack({ env: { PORT: '3999' }, dataDir, handleSignals: false, log: quiet, launchers });
    await first.stop();
    const second = await startStack({ env: { PORT: '3999' }, dataDir, handleSignals: false, log: quiet, launchers });
    await second.stop();
    expect(second.env.TEMPORAL_PAYLOAD_KEYS).toBe(first.env.TEMPORAL_PAYLOAD_KEYS);
    expect(second.env.TEMPORAL_CODEC_AUTH_TOKEN).toBe(first.env.TEMPORAL_CODEC_AUTH_TOKEN);
    expect(fs.readFileSync(path.join(dataDir, 'temporal-payload-keys'), 'utf8').trim()).toBe(
      first.env.TEMPORAL_PAYLOAD_KEYS,
    );
    expect(seen).toEqual([
      `http://127.0.0.1:3999/codec/${first.env.TEMPORAL_CODEC_AUTH_TOKEN}`,
      `http://127.0.0.1:3999/codec/${first.env.TEMPORAL_CODEC_AUTH_TOKEN}`,
    ]);
    // Keys from the environment win over the data folder's.
    const given = await startStack({
      env: { TEMPORAL_PAYLOAD_KEYS: 'mine:abc', TEMPORAL_CODEC_AUTH_TOKEN: 'tok' },
      dataDir,
      handleSignals: false,
      log: quiet,
      launchers,
    });
    await given.stop();
    expect(given.env).toMatchObject({ TEMPORAL_PAYLOAD_KEYS: 'mine:abc', TEMPORAL_CODEC_AUTH_TOKEN: 'tok' });
  });

  it('runs the embedded Temporal server at TEMPORAL_NICE: 10 for npm start, 0 for the test profile', async () => {
    const seen: (number | undefined)[] = [];
    const launchers = fakeLaunchers([]);
    const temporal = launchers.temporal;
    launchers.temporal = (ctx, config) => {
      seen.push(config.nice);
      return temporal(ctx, config);
    };
    for (const [profile, env] of [
      ['dev', {}],
      ['test', {}],
      ['test', { TEMPORAL_NICE: '7' }],
      ['dev', { TEMPORAL_NICE: '0' }],
    ] as const) {
      const stack = await startStack({ profile, env, dataDir, handleSignals: false, log: quiet, launchers });
      await stack.stop();
    }
    expect(seen).toEqual([10, 0, 7, 0]);
    expect(() => temporalNice({ TEMPORAL_NICE: '20' }, 'dev')).toThrow(/TEMPORAL_NICE must be an integer from 0 to 19/);
    expect(() => temporalNice({ TEMPORAL_NICE: 'high' }, 'test')).toThrow(/got "high"/);
  });

  it('refuses a second stack on the same data folder', async () => {
    const first = await startStack({
      env: {},
      dataDir,
      handleSignals: false,
      log: quiet,
      launchers: fakeLaunchers([]),
    });
    const lockFile = path.join(dataDir, LOCK_FILE_NAME);
    expect((JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { pid: number }).pid).toBe(process.pid);
    await first.stop();

    // Another live node process holds the lock.
    fs.writeFileSync(lockFile, JSON.stringify({ pid: spawnNodeSleeper(), children: {} }));
    const second = startStack({ env: {}, dataDir, handleSignals: false, log: quiet, launchers: fakeLaunchers([]) });
    await expect(second).rejects.toBeInstanceOf(StackLockedError);
    await expect(second).rejects.toThrow(/already running on the data folder/);
  });

  it('takes over a stale lock (dead pid)', async () => {
    const deadPid = spawnSync('true').pid;
    fs.writeFileSync(path.join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: deadPid, children: {} }));
    const lines: string[] = [];
    const stack = await startStack({
      env: {},
      dataDir,
      handleSignals: false,
      log: (l) => lines.push(l),
      launchers: fakeLaunchers([]),
    });
    expect(lines.join('\n')).toMatch(/stale lock/);
    await stack.stop();
  });

  it('stops what started when another service fails, and releases the lock', async () => {
    const stopped: string[] = [];
    const launchers = fakeLaunchers([], stopped);
    launchers.temporal = () => Promise.reject(new Error('temporal broke'));
    await expect(startStack({ env: {}, dataDir, handleSignals: false, log: quiet, launchers })).rejects.toThrow(
      'temporal broke',
    );
    expect(stopped.sort()).toEqual(['meilisearch', 'postgres']);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
  });

  it('cancels start-up when the abort signal fires', async () => {
    const controller = new AbortController();
    const launchers = fakeLaunchers([]);
    launchers.temporal = (ctx) =>
      new Promise((_resolve, reject) =>
        ctx.signal.addEventListener('abort', () => reject(new Error('temporal: cancelled'))),
      );
    const starting = startStack({
      env: {},
      dataDir,
      handleSignals: false,
      log: quiet,
      launchers,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await expect(starting).rejects.toThrow(/cancelled/);
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
  });
});

describe('Temporal dev server', () => {
  it('persists to SQLite in WAL mode and registers every CRM search attribute', () => {
    const args = temporalDevServerArgs({
      dataDir: '/d',
      port: 7233,
      uiPort: 8233,
      namespace: 'default',
      portEnvVar: 'TEMPORAL_PORT',
      uiPortEnvVar: 'TEMPORAL_UI_PORT',
    });
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(args.join(' ')).toContain(
      '--db-filename /d/temporal.db --sqlite-pragma journal_mode=WAL --sqlite-pragma synchronous=NORMAL',
    );
    expect(args.join(' ')).toContain('--ip 127.0.0.1 --port 7233 --ui-port 8233 --namespace default');
    expect(args).toEqual(expect.arrayContaining(searchAttributeCliArgs()));
    expect(CRM_SEARCH_ATTRIBUTE_NAMES).toEqual([
      'CrmWorkspaceId',
      'CrmAutomationId',
      'CrmSequenceId',
      'CrmEntityType',
      'CrmEntityId',
      'CrmTriggerType',
    ]);
  });
});

const sleepers: number[] = [];
/** A live node process other than us (the lock counts only node processes as stack owners). */
function spawnNodeSleeper(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  sleepers.push(child.pid ?? 0);
  return child.pid ?? 0;
}
afterAll(() => {
  for (const pid of sleepers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});
