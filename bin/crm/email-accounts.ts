import fs from 'node:fs';
import path from 'node:path';
import type { EmailAccountInput } from '../../modules/email';
import { validation } from '../../platform/errors';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import { parseId } from '../../modules/workspaces';
import { dataDirFor } from '../../infra/paths';
import type { CommandSpec, Flag } from './command-spec';

/** CRM_SECRETS_KEY, or (unset) the one `npm start` keeps in its data folder. */
export function secretsKeyFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  if (env.CRM_SECRETS_KEY) return env.CRM_SECRETS_KEY;
  const file = path.join(dataDirFor('dev', env), 'secrets-key');
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() || undefined : undefined;
}

const workspace: Flag = { name: 'workspace', value: '<id>', required: true, description: 'workspace id' };
const id: Flag = { name: 'id', value: '<accountId>', required: true, description: 'e-mail account id' };

function port(raw: string | undefined, what: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw validation(`--${what} must be a port number 1-65535`);
  return n;
}
function bool(raw: string | undefined, what: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw validation(`--${what} must be true or false`);
}
/** A cap flag: a whole number, or `none` to lift it (checked again by the service: 1..1,000,000). */
function cap(raw: string | undefined, what: string): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'none') return null;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(n)) throw validation(`--${what} must be a whole number or none`);
  return n;
}
const capFlags: Flag[] = [
  {
    name: 'max-per-hour',
    value: '<n>|none',
    required: false,
    description: 'at most n e-mails per calendar hour (UTC) from this mailbox, every sender together',
  },
  { name: 'max-per-day', value: '<n>|none', required: false, description: 'at most n e-mails per calendar day (UTC)' },
];
type Values = Record<string, string | undefined>;
const capsOf = (v: Values) => ({
  maxPerHour: cap(v['max-per-hour'], 'max-per-hour'),
  maxPerDay: cap(v['max-per-day'], 'max-per-day'),
});
/** The account a command names (--workspace, --id). */
const accountOf = (v: Values) => ({
  workspaceId: parseId(v.workspace as string, 'workspace'),
  accountId: parseId(v.id as string, 'e-mail account'),
});

/** The flags of the mailbox's SMTP or IMAP server: host, port, secure, login and the password's variable. */
function serverFlags(
  kind: 'smtp' | 'imap',
  about: { host: string; hostRequired: boolean; port: string; secure: string; user: string },
): Flag[] {
  return [
    { name: `${kind}-host`, value: '<host>', required: about.hostRequired, description: about.host },
    { name: `${kind}-port`, value: '<port>', required: false, description: about.port },
    { name: `${kind}-secure`, value: 'true|false', required: false, description: about.secure },
    { name: `${kind}-user`, value: '<user>', required: false, description: about.user },
    {
      name: `${kind}-password-env`,
      value: '<VAR>',
      required: false,
      description: `name of the environment variable holding the ${kind.toUpperCase()} password`,
    },
  ];
}

/** A password flag names an environment variable, so the secret never appears in shell history or `ps`. */
function secret(env: NodeJS.ProcessEnv, name: string | undefined, what: string): string | undefined {
  if (name === undefined) return undefined;
  const value = env[name];
  if (!value) throw validation(`--${what}: environment variable ${name} is not set`);
  return value;
}

export const emailAccountCommands: CommandSpec[] = [
  {
    name: 'email-account add',
    summary:
      'Connect a mailbox (SMTP sending, optional IMAP receiving); passwords are encrypted with CRM_SECRETS_KEY; prints the inbound-webhook secret once',
    flags: [
      workspace,
      { name: 'name', value: '<name>', required: true, description: 'label, e.g. "Sales"' },
      { name: 'email', value: '<address>', required: true, description: 'the mailbox address (sender)' },
      { name: 'display-name', value: '<name>', required: false, description: 'sender name' },
      ...serverFlags('smtp', {
        host: 'SMTP server',
        hostRequired: true,
        port: 'default 587 (465 with --smtp-secure true)',
        secure: 'TLS from the first byte (port 465); else STARTTLS when offered',
        user: 'SMTP login',
      }),
      ...serverFlags('imap', {
        host: 'IMAP server (receiving)',
        hostRequired: false,
        port: 'default 993',
        secure: 'default true',
        user: 'IMAP login (default: the address)',
      }),
      {
        name: 'users',
        value: '<ids>',
        required: false,
        description: 'comma-separated user ids who may use it (default: shared with every user)',
      },
      ...capFlags,
    ],
    prepare(v) {
      const workspaceId = parseId(v.workspace as string, 'workspace');
      const userIds = v.users
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((u) => parseId(u, 'user'));
      const smtpPort = port(v['smtp-port'], 'smtp-port');
      const smtpSecure = bool(v['smtp-secure'], 'smtp-secure');
      const imapPort = port(v['imap-port'], 'imap-port');
      const imapSecure = bool(v['imap-secure'], 'imap-secure') ?? (imapPort === undefined || imapPort === 993);
      const caps = capsOf(v);
      return async (em, io) => {
        const input: EmailAccountInput = {
          workspaceId,
          name: v.name as string,
          emailAddress: v.email as string,
          displayName: v['display-name'],
          smtp: {
            host: v['smtp-host'] as string,
            port: smtpPort,
            secure: smtpSecure,
            user: v['smtp-user'],
            password: secret(io.env, v['smtp-password-env'], 'smtp-password-env'),
          },
          ...(v['imap-host']
            ? {
                imap: {
                  host: v['imap-host'],
                  port: imapPort,
                  secure: imapSecure,
                  user: v['imap-user'] ?? (v.email as string),
                  password: secret(io.env, v['imap-password-env'], 'imap-password-env'),
                },
              }
            : {}),
          userIds,
          ...caps,
        };
        // Loaded on use: the mail libraries are not needed by the other commands.
        const { addEmailAccount } = await import('../../modules/email');
        const { account, inboundSecret } = await addEmailAccount(em, input, parseSecretsKey(secretsKeyFromEnv(io.env)));
        return {
          result: { ...account, inboundSecret },
          human: [
            `E-mail account connected: ${String(account._id)} <${String(account.emailAddress)}>`,
            `Inbound webhook: POST /api/webhooks/email/inbound/${String(account._id)} with header x-webhook-secret:`,
            `  ${inboundSecret}`,
            'Store this secret now: it is shown only once.',
          ].join('\n'),
        };
      };
    },
  },
  {
    name: 'email-account test',
    summary: "Log in to the mailbox's SMTP (and IMAP) server and record the outcome on the account",
    flags: [workspace, id],
    prepare(v) {
      const { workspaceId, accountId } = accountOf(v);
      return async (em, io) => {
        const { testEmailAccount } = await import('../../modules/email');
        const result = await testEmailAccount(em, workspaceId, accountId, secretsKeyFromEnv(io.env));
        const line = (name: string, r: { ok: boolean; error?: string } | null) =>
          r ? `${name}: ${r.ok ? 'ok' : `failed (${r.error})`}` : `${name}: not configured`;
        return {
          result: { ...result },
          human: [
            `E-mail account ${accountId}: ${result.status}`,
            line('SMTP', result.smtp),
            line('IMAP', result.imap),
          ].join('\n'),
        };
      };
    },
  },
  {
    name: 'email-account limits',
    summary:
      'Set the sending caps of a mailbox (max per hour / per day, every sender together; none lifts a cap); sends over a cap wait (sequences, bulk) or get 429',
    flags: [workspace, id, ...capFlags],
    prepare(v) {
      const { workspaceId, accountId } = accountOf(v);
      const caps = capsOf(v);
      return async (em) => {
        const { setEmailAccountCaps } = await import('../../modules/email');
        const account = await setEmailAccountCaps(em, workspaceId, accountId, caps);
        return {
          result: { ...account },
          human: `E-mail account ${accountId}: max ${account.maxPerHour ?? 'unlimited'} per hour, ${account.maxPerDay ?? 'unlimited'} per day.`,
        };
      };
    },
  },
  {
    name: 'email-account remove',
    summary: 'Disconnect a mailbox (its e-mails stay)',
    flags: [workspace, id],
    prepare(v) {
      const { workspaceId, accountId } = accountOf(v);
      return async (em) => {
        const { removeEmailAccount } = await import('../../modules/email');
        const result = await removeEmailAccount(em, workspaceId, accountId);
        return { result: { ...result }, human: `E-mail account ${accountId} removed.` };
      };
    },
  },
];
