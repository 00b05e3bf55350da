import { execFile } from 'node:child_process';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { SCOPES } from '../../platform/context';
import { newId } from '../../platform/ids';
import { ormConfig } from '../../app/orm';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { ApiKey } from '../../modules/workspaces/api-key.entity';
import { authenticateKey } from '../../modules/workspaces/authenticate';
import { User } from '../../modules/workspaces/user.entity';
import { devStackDatabaseUrl } from '../../bin/crm/main';
import { runCrm } from '../support/cli';
import { domainErrorOf } from '../support/expect';

// Each spawn costs about a second of CPU (tsx + MikroORM): the main paths and each exit code are
// checked through a real process, the long tables in-process through runCli (the same code
// bin/crm.ts runs). Spawns run concurrently, bounded so that a small machine is not oversubscribed.

const ROOT = path.resolve(__dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const CLI = path.join(ROOT, 'bin/crm.ts');
const MAX_PARALLEL_SPAWNS = 4;
const TIMEOUT = 90_000;

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

let running = 0;
const waiting: Array<() => void> = [];

async function limited<T>(fn: () => Promise<T>): Promise<T> {
  while (running >= MAX_PARALLEL_SPAWNS) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** The contract: with --json the last stdout line is one JSON object and nothing follows it. */
function lastJsonLine(stdout: string): any {
  if (!stdout.endsWith('\n')) return undefined;
  const lines = stdout.slice(0, -1).split('\n');
  try {
    return JSON.parse(lines[lines.length - 1]);
  } catch {
    return undefined;
  }
}

function crm(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete childEnv[name];
    else childEnv[name] = value;
  }
  return limited(
    () =>
      new Promise<CliResult>((resolve) => {
        execFile(TSX, [CLI, ...args], { cwd: ROOT, env: childEnv, timeout: 30_000 }, (err, stdout, stderr) => {
          const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
          resolve({ code, stdout, stderr, json: lastJsonLine(stdout) });
        });
      }),
  );
}

/** In-process run of the same entry point, with captured output. */
async function crmInProcess(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CliResult> {
  const res = await runCrm(args, env);
  return { ...res, json: lastJsonLine(res.stdout) };
}

type Runner = (args: string[]) => Promise<CliResult>;

async function crmJson(args: string[], runner: Runner = crm): Promise<any> {
  const res = await runner([...args, '--json']);
  if (res.code !== 0) throw new Error(`crm ${args.join(' ')} exited ${res.code}: ${res.stderr}${res.stdout}`);
  // A successful --json run prints exactly one line: the result.
  expect(res.stdout.trim().split('\n')).toHaveLength(1);
  return res.json;
}

// Memoised as a promise so that concurrent tests share one ORM (closed in afterAll).
let orm: Promise<MikroORM> | undefined;
function db(): Promise<MikroORM> {
  orm ??= MikroORM.init(ormConfig(process.env.DATABASE_URL as string, { logger: () => undefined }));
  return orm;
}

const authenticate = async (key: string) => authenticateKey((await db()).em.fork(), key);

const authError = (key: string) => domainErrorOf(authenticate(key));

interface CreatedWorkspace {
  workspaceId: string;
  userId: string;
  apiKey: string;
  res: CliResult;
}

// A shared fixture as a memoised promise (beforeAll does not reliably precede test.concurrent).
// MIKRO_ORM_DEBUG is set to prove that the ORM prints nothing (query logs would carry secrets).
let shared: Promise<CreatedWorkspace> | undefined;
function sharedWorkspace(): Promise<CreatedWorkspace> {
  shared ??= crm(['workspace', 'create', '--name', `CLI test ${newId()}`, '--json'], { MIKRO_ORM_DEBUG: 'true' }).then(
    (res) => {
      if (res.code !== 0) throw new Error(`workspace create failed (${res.code}): ${res.stderr}`);
      return { ...res.json, res };
    },
  );
  return shared;
}

beforeAll(() => {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL must be set for the CLI tests');
});

afterAll(async () => {
  await (await orm)?.close(true);
});

describe('crm CLI: commands', () => {
  test.concurrent(
    'workspace create prints ids and an owner key with every scope that authenticates',
    async () => {
      const created = await sharedWorkspace();
      expect(Object.keys(created.res.json).sort()).toEqual(['apiKey', 'userId', 'workspaceId']);
      // Exactly one stdout line (the result) and nothing from MikroORM despite MIKRO_ORM_DEBUG.
      expect(created.res.stdout.trim().split('\n')).toHaveLength(1);
      expect(created.res.stderr).toBe('');
      expect(created.workspaceId).toMatch(/^[0-9a-f]{24}$/);
      expect(created.userId).toMatch(/^[0-9a-f]{24}$/);
      expect(created.apiKey).toMatch(/^sb_[\w-]{43}$/);

      const actor = await authenticate(created.apiKey);
      expect(actor).toMatchObject({ workspaceId: created.workspaceId, userId: created.userId, role: 'owner' });
      expect([...actor.scopes].sort()).toEqual([...SCOPES].sort());
    },
    TIMEOUT,
  );

  test.concurrent(
    'key create makes a key with the given scopes, role and name',
    async () => {
      const { workspaceId, userId } = await sharedWorkspace();
      const key = await crmJson([
        'key',
        'create',
        '--workspace',
        workspaceId,
        '--scopes',
        'read, write,read',
        '--role',
        'member',
        '--name',
        'ci key',
      ]);
      expect(Object.keys(key).sort()).toEqual(['apiKey', 'id', 'prefix']);
      expect(key.apiKey.startsWith(key.prefix)).toBe(true);

      const actor = await authenticate(key.apiKey);
      expect(actor).toMatchObject({ workspaceId, userId, role: 'member', keyId: key.id, keyPrefix: key.prefix });
      expect([...actor.scopes].sort()).toEqual(['read', 'write']);
      const row = await (await db()).em.fork().findOneOrFail(ApiKey, { _id: key.id });
      expect(row.name).toBe('ci key');
      expect(row.hash).not.toBe(key.apiKey);
    },
    TIMEOUT,
  );

  test.concurrent(
    'user create adds a user (e-mail normalised) and refuses a duplicate e-mail',
    async () => {
      const { workspaceId } = await sharedWorkspace();
      const email = `Ann.${newId()}@Example.com`;
      const user = await crmJson([
        'user',
        'create',
        '--workspace',
        workspaceId,
        '--email',
        email,
        '--first-name',
        'Ann',
        '--last-name',
        'Lee',
        '--role',
        'admin',
      ]);
      expect(user).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        email: email.toLowerCase(),
        role: 'admin',
        workspaceId,
      });

      const row = await forkForWorkspace((await db()).em, workspaceId).findOneOrFail(User, { _id: user.id });
      expect(row).toMatchObject({ firstName: 'Ann', lastName: 'Lee', role: 'admin', email: email.toLowerCase() });

      const duplicate = await crmInProcess([
        'user',
        'create',
        '--workspace',
        workspaceId,
        '--email',
        email.toUpperCase(),
        '--first-name',
        'Ann',
        '--role',
        'member',
        '--json',
      ]);
      expect(duplicate.code).toBe(1);
      expect(duplicate.json).toEqual({ error: expect.stringMatching(/already exists/), code: 'conflict' });
    },
    TIMEOUT,
  );

  test.concurrent(
    'key revoke makes the key fail authentication with forbidden, and is idempotent',
    async () => {
      const { workspaceId } = await sharedWorkspace();
      const key = await crmJson(['key', 'create', '--workspace', workspaceId, '--scopes', 'read', '--role', 'member']);
      await expect(authenticate(key.apiKey)).resolves.toMatchObject({ keyId: key.id });

      const revoked = await crmJson(['key', 'revoke', '--id', key.id]);
      expect(revoked).toEqual({ id: key.id, revoked: true, revokedAt: expect.any(String) });
      expect(Number.isNaN(Date.parse(revoked.revokedAt))).toBe(false);
      const err = await authError(key.apiKey);
      expect(err.code).toBe('forbidden');
      expect(err.message).toMatch(/revoked/);

      const again = await crmJson(['key', 'revoke', '--id', key.id], crmInProcess);
      expect(again).toEqual(revoked);
    },
    TIMEOUT,
  );

  test.concurrent(
    'workspace suspend and resume toggle whether its keys authenticate',
    async () => {
      // Its own workspace: suspending the shared one would break the tests running beside this one.
      const created = await crmJson(['workspace', 'create', '--name', `CLI suspend ${newId()}`], crmInProcess);
      const suspended = await crmJson(['workspace', 'suspend', '--workspace', created.workspaceId]);
      expect(suspended).toEqual({ workspaceId: created.workspaceId, status: 'suspended' });
      const err = await authError(created.apiKey);
      expect(err.code).toBe('forbidden');
      expect(err.message).toMatch(/suspended/);

      const resumed = await crmJson(['workspace', 'resume', '--workspace', created.workspaceId]);
      expect(resumed).toEqual({ workspaceId: created.workspaceId, status: 'active' });
      await expect(authenticate(created.apiKey)).resolves.toMatchObject({ workspaceId: created.workspaceId });
    },
    TIMEOUT,
  );

  test.concurrent(
    'without --json, prints human-readable output with the key and a shown-once note',
    async () => {
      const res = await crmInProcess(['workspace', 'create', '--name', `CLI human ${newId()}`]);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/shown only once/);
      const apiKey = res.stdout.match(/sb_[\w-]{43}/)?.[0];
      expect(apiKey).toBeDefined();
      await expect(authenticate(apiKey as string)).resolves.toMatchObject({ role: 'owner' });
      expect(res.stderr).toBe('');
    },
    TIMEOUT,
  );

  test.concurrent.each([
    { args: ['--help'], runner: crm },
    { args: ['help'], runner: crmInProcess },
    { args: ['key', 'create', '-h'], runner: crmInProcess },
  ])(
    '$args prints usage and exits 0',
    async ({ args, runner }) => {
      const res = await runner(args);
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^Usage: npm run -s crm -- <command>/);
      for (const command of [
        'workspace create',
        'workspace suspend',
        'workspace resume',
        'key create',
        'key revoke',
        'user create',
      ]) {
        expect(res.stdout).toContain(command);
      }
    },
    TIMEOUT,
  );
});

const UNKNOWN = newId(); // well-formed, never stored
const user = (over: string[]) => [
  'user',
  'create',
  '--workspace',
  UNKNOWN,
  '--email',
  'a@example.com',
  '--first-name',
  'A',
  '--role',
  'member',
  ...over,
];
const key = (over: string[]) => [
  'key',
  'create',
  '--workspace',
  UNKNOWN,
  '--scopes',
  'read',
  '--role',
  'member',
  ...over,
];

describe('crm CLI: bad arguments', () => {
  // [case, exit code, error code, args (before --json), message pattern]; run in-process.
  const cases: Array<[string, number, string, string[], RegExp]> = [
    ['no command', 2, 'usage', [], /no command/],
    ['unknown command', 2, 'usage', ['frobnicate'], /unknown command "frobnicate"/],
    ['missing subcommand', 2, 'usage', ['workspace'], /needs a subcommand/],
    ['unknown subcommand', 2, 'usage', ['workspace', 'explode'], /unknown command "workspace explode"/],
    ['missing --name', 2, 'usage', ['workspace', 'create'], /missing required flag --name/],
    ['unknown flag', 2, 'usage', ['workspace', 'create', '--name', 'X', '--bogus'], /Unknown option '--bogus'/],
    ['stray positional', 2, 'usage', ['workspace', 'create', '--name', 'X', 'stray'], /Unexpected argument 'stray'/],
    ['flag without value', 2, 'usage', ['key', 'revoke', '--id'], /--id/],
    [
      'missing --scopes',
      2,
      'usage',
      ['key', 'create', '--workspace', UNKNOWN, '--role', 'member'],
      /missing required flag --scopes/,
    ],
    [
      'missing --role',
      2,
      'usage',
      ['key', 'create', '--workspace', UNKNOWN, '--scopes', 'read'],
      /missing required flag --role/,
    ],
    [
      'missing --first-name',
      2,
      'usage',
      ['user', 'create', '--workspace', UNKNOWN, '--email', 'a@example.com', '--role', 'member'],
      /--first-name/,
    ],
    ['blank workspace name', 2, 'validation', ['workspace', 'create', '--name', '   '], /workspace name is required/],
    ['unknown scope', 2, 'validation', key(['--scopes', 'read,fly']), /unknown scope\(s\): fly/],
    ['empty scope list', 2, 'validation', key(['--scopes', ' , ']), /at least one scope/],
    ['unknown key role', 2, 'validation', key(['--role', 'god']), /unknown role "god"/],
    ['blank key name', 2, 'validation', key(['--name', ' ']), /key name must not be empty/],
    ['malformed workspace id', 2, 'validation', key(['--workspace', 'not-an-id']), /invalid workspace id "not-an-id"/],
    ['upper-case id', 2, 'validation', key(['--workspace', UNKNOWN.toUpperCase()]), /invalid workspace id/],
    ['malformed key id', 2, 'validation', ['key', 'revoke', '--id', '12345'], /invalid api key id/],
    ['malformed suspend id', 2, 'validation', ['workspace', 'suspend', '--workspace', 'ZZ'], /invalid workspace id/],
    [
      'malformed resume id',
      2,
      'validation',
      ['workspace', 'resume', '--workspace', `${UNKNOWN}0`],
      /invalid workspace id/,
    ],
    ['malformed user workspace id', 2, 'validation', user(['--workspace', 'x']), /invalid workspace id/],
    ['invalid e-mail', 2, 'validation', user(['--email', 'not-an-email']), /invalid e-mail address/],
    ['unknown user role', 2, 'validation', user(['--role', 'boss']), /unknown role "boss"/],
    ['blank first name', 2, 'validation', user(['--first-name', '  ']), /first name must not be empty/],
    ['unknown workspace (key)', 1, 'not_found', key([]), /workspace not found/],
    ['unknown workspace (user)', 1, 'not_found', user([]), /workspace not found/],
    [
      'unknown workspace (suspend)',
      1,
      'not_found',
      ['workspace', 'suspend', '--workspace', UNKNOWN],
      /workspace not found/,
    ],
    [
      'unknown workspace (resume)',
      1,
      'not_found',
      ['workspace', 'resume', '--workspace', UNKNOWN],
      /workspace not found/,
    ],
    ['unknown key id', 1, 'not_found', ['key', 'revoke', '--id', UNKNOWN], /api key not found/],
  ];

  test.concurrent.each(cases)(
    '%s → exit %i (%s)',
    async (_name, exit, code, args, pattern) => {
      const res = await crmInProcess([...args, '--json']);
      expect(res.code).toBe(exit);
      expect(res.json).toEqual({ error: expect.stringMatching(pattern), code });
      expect(res.stderr).toContain(res.json.error);
    },
    TIMEOUT,
  );

  // The exit codes and the last-line JSON through a real process, one per kind of failure.
  test.concurrent.each([
    ['usage', 2, ['frobnicate'], {}],
    ['validation', 2, key(['--role', 'god']), {}],
    ['not_found', 1, ['key', 'revoke', '--id', UNKNOWN], {}],
    [
      'upstream_failed',
      1,
      ['workspace', 'suspend', '--workspace', UNKNOWN],
      { DATABASE_URL: undefined, CRM_PG_PORT: '9' },
    ],
  ] as Array<[string, number, string[], Record<string, string | undefined>]>)(
    'a %s error exits %i from the process',
    async (code, exit, args, env) => {
      const res = await crm([...args, '--json'], env);
      expect(res.code).toBe(exit);
      expect(res.json).toEqual({ error: expect.any(String), code });
      expect(res.stderr).toContain(`crm: error: ${res.json.error}`);
    },
    TIMEOUT,
  );

  test.concurrent(
    'without --json an error goes to stderr only',
    async () => {
      const res = await crmInProcess(key(['--scopes', 'fly']));
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toMatch(/unknown scope\(s\): fly/);
    },
    TIMEOUT,
  );

  test.concurrent(
    'without DATABASE_URL it uses the npm start database (CRM_PG_PORT) and says so when it is down',
    async () => {
      expect(devStackDatabaseUrl({})).toBe('postgres://crm:crm@127.0.0.1:54329/crm');
      const env = { ...process.env, DATABASE_URL: undefined, CRM_PG_PORT: '9' };
      const res = await crmInProcess(['workspace', 'suspend', '--workspace', UNKNOWN, '--json'], env);
      expect(res.code).toBe(1);
      expect(res.json).toEqual({
        error: expect.stringMatching(/cannot connect to the database at postgres:\/\/\S+@127\.0\.0\.1:9\//),
        code: 'upstream_failed',
      });
    },
    TIMEOUT,
  );

  test.concurrent(
    'an unreachable database is a clear error that does not show the password',
    async () => {
      const env = { ...process.env, DATABASE_URL: 'postgres://u:hunter2pw@127.0.0.1:9/crm' };
      const res = await crmInProcess(['workspace', 'suspend', '--workspace', UNKNOWN, '--json'], env);
      expect(res.code).toBe(1);
      expect(res.json).toEqual({
        error: expect.stringMatching(/cannot connect to the database/),
        code: 'upstream_failed',
      });
      expect(res.stdout + res.stderr).not.toContain('hunter2pw');
    },
    TIMEOUT,
  );
});
