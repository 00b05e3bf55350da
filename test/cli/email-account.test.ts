import { MikroORM } from '@mikro-orm/postgresql';
import { runCrm } from '../support/cli';
import { ormConfig } from '../../app/orm';
import { createWorkspace } from '../../modules/workspaces/workspaces.service';
import { startSmtp, type LocalSmtp } from '../unit/messaging/local-smtp';

// In-process runs of `crm email-account …` (same code path as bin/crm.ts, without a spawn per call).
let orm: MikroORM;
let smtp: LocalSmtp;
let workspaceId: string;
beforeAll(async () => {
  orm = await MikroORM.init(ormConfig(process.env.DATABASE_URL as string));
  smtp = await startSmtp({ user: 'mailer', password: 'right-password' });
  workspaceId = (await createWorkspace(orm.em.fork(), { name: 'CLI mail' })).workspaceId;
});
afterAll(async () => {
  await smtp.close();
  await orm.close(true);
});

async function crm(args: string[], env: Record<string, string> = {}) {
  const res = await runCrm([...args, '--json'], { ...process.env, ...env });
  const lines = res.stdout.trim().split('\n');
  return { ...res, json: JSON.parse(lines[lines.length - 1]!) };
}

const add = (address: string, passwordVar = 'MAIL_PW') =>
  crm(
    [
      'email-account',
      'add',
      '--workspace',
      workspaceId,
      '--name',
      'Support',
      '--email',
      address,
      '--smtp-host',
      '127.0.0.1',
      '--smtp-port',
      String(smtp.port),
      '--smtp-secure',
      'false',
      '--smtp-user',
      'mailer',
      '--smtp-password-env',
      passwordVar,
    ],
    { MAIL_PW: 'right-password', BAD_PW: 'wrong-password' },
  );

it('adds, tests and removes a mailbox; the password never appears in the output', async () => {
  const added = await add('support@acme.example');
  expect(added.code).toBe(0);
  expect(added.json).toMatchObject({
    name: 'Support',
    emailAddress: 'support@acme.example',
    shared: true,
    smtp: { host: '127.0.0.1', port: smtp.port, secure: false },
  });
  expect(added.json.inboundSecret).toMatch(/^whin_/);
  expect(added.stdout + added.stderr).not.toContain('right-password');
  const id = added.json._id as string;

  const tested = await crm(['email-account', 'test', '--workspace', workspaceId, '--id', id]);
  expect(tested.code).toBe(0);
  expect(tested.json).toMatchObject({ id, status: 'ok', smtp: { ok: true }, imap: null });

  expect((await add('support@acme.example')).json.code).toBe('conflict');

  const removed = await crm(['email-account', 'remove', '--workspace', workspaceId, '--id', id]);
  expect(removed).toMatchObject({ code: 0, json: { id, removed: true } });
  expect(await crm(['email-account', 'remove', '--workspace', workspaceId, '--id', id])).toMatchObject({
    code: 1,
    json: { code: 'not_found' },
  });
});

it('records a failing login', async () => {
  const added = await add('wrong@acme.example', 'BAD_PW');
  const tested = await crm(['email-account', 'test', '--workspace', workspaceId, '--id', added.json._id]);
  expect(tested.json).toMatchObject({ status: 'failing', smtp: { ok: false } });
  expect(tested.json.smtp.error).toMatch(/authentication/i);
});

it.each([
  [['--smtp-host', 'x'], 'usage'],
  [['--smtp-host', '127.0.0.1', '--smtp-port', '70000'], 'validation'],
  [['--smtp-host', '127.0.0.1', '--smtp-user', 'u'], 'validation'],
  [['--smtp-host', '127.0.0.1', '--smtp-password-env', 'UNSET_VAR_X', '--smtp-user', 'u'], 'validation'],
  [['--smtp-host', '127.0.0.1', '--users', 'nope'], 'validation'],
])('refuses bad flags %j', async (flags, code) => {
  const base = [
    'email-account',
    'add',
    '--workspace',
    workspaceId,
    '--name',
    'X',
    ...(code === 'usage' ? [] : ['--email', `x${Math.random().toString(36).slice(2)}@acme.example`]),
  ];
  const res = await crm([...base, ...flags]);
  expect(res.code).toBe(2);
  expect(res.json.code).toBe(code);
});
