import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { MAX_MAILBOX_CAP, parseMailbox } from '../messaging';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { plainOf } from '../../platform/shared/views';
import { openSecret, sealSecret } from '../../platform/shared/secret-box';
import { User } from '../workspaces';
import { EmailAccount } from './email-account.entity';
import type { EmailAccountView } from './email.views';

/** What the operator CLI gives to connect a mailbox (passwords are sealed before they are stored). */
export interface EmailAccountInput {
  workspaceId: string;
  name: string;
  emailAddress: string;
  displayName?: string;
  smtp: { host: string; port?: number; secure?: boolean; user?: string; password?: string };
  imap?: { host: string; port?: number; secure?: boolean; user?: string; password?: string };
  /** Users who may see and send from it; none given = shared with every user of the workspace. */
  userIds?: string[];
  /** Sending caps shared by every sender (sequences, bulk, single sends); absent or null = none. */
  maxPerHour?: number | null;
  maxPerDay?: number | null;
}

export interface EmailAccountCaps {
  maxPerHour?: number | null;
  maxPerDay?: number | null;
}

/** maxPerHour / maxPerDay: whole numbers 1..MAX_MAILBOX_CAP, or null (no cap). */
export function checkCaps(caps: EmailAccountCaps): { maxPerHour: number | null; maxPerDay: number | null } {
  const one = (v: number | null | undefined, what: string): number | null => {
    if (v === undefined || v === null) return null;
    if (!Number.isInteger(v) || v < 1 || v > MAX_MAILBOX_CAP)
      throw validation(`${what} must be a whole number from 1 to ${MAX_MAILBOX_CAP} (or null for no cap)`, [
        { path: what, error: `must be 1-${MAX_MAILBOX_CAP}` },
      ]);
    return v;
  };
  const maxPerHour = one(caps.maxPerHour, 'maxPerHour');
  const maxPerDay = one(caps.maxPerDay, 'maxPerDay');
  if (maxPerHour !== null && maxPerDay !== null && maxPerHour > maxPerDay)
    throw validation('maxPerHour must not be greater than maxPerDay', [
      { path: 'maxPerHour', error: 'greater than maxPerDay' },
    ]);
  return { maxPerHour, maxPerDay };
}

export interface AccountSecrets {
  smtpPassword?: string;
  imapPassword?: string;
}

const PUBLIC_FIELDS = [
  '_id',
  'name',
  'emailAddress',
  'displayName',
  'shared',
  'userIds',
  'status',
  'lastTestedAt',
  'lastError',
  'maxPerHour',
  'maxPerDay',
  'createdAt',
  'updatedAt',
] as const;

/** The API view: hosts and ports, never user names, passwords or the inbound secret. */
export function serializeEmailAccount(a: EmailAccount): EmailAccountView {
  return {
    ...plainOf(a, PUBLIC_FIELDS),
    canSend: true,
    canReceive: !!a.imapHost,
    smtp: { host: a.smtpHost, port: a.smtpPort, secure: a.smtpSecure },
    imap: a.imapHost ? { host: a.imapHost, port: a.imapPort ?? null, secure: a.imapSecure } : null,
  };
}

export const hashInboundSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Constant-time check of an inbound-webhook secret against the stored hash. */
export function inboundSecretMatches(account: EmailAccount, given: string | undefined): boolean {
  if (!given) return false;
  const a = Buffer.from(hashInboundSecret(given), 'hex');
  const b = Buffer.from(account.inboundSecretHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function accountSecrets(account: EmailAccount, key: Buffer | null): AccountSecrets {
  if (!account.secrets) return {};
  return JSON.parse(openSecret(account.secrets, key, account._id)) as AccountSecrets;
}

const HOST_RE = /^[A-Za-z0-9.-]{1,253}$|^\[?[0-9a-fA-F:.]+\]?$/;

function checkServer(
  what: string,
  s: { host: string; port?: number; secure?: boolean; user?: string; password?: string },
  defaults: { secure: number; plain: number },
) {
  const host = s.host.trim();
  if (!HOST_RE.test(host)) throw validation(`${what} host "${host}" is not a host name or IP address`);
  const secure = s.secure ?? s.port === defaults.secure;
  const port = s.port ?? (secure ? defaults.secure : defaults.plain);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw validation(`${what} port must be 1-65535`);
  if (!s.user !== !s.password) throw validation(`${what} user and password must be given together`);
  return { host, port, secure, user: s.user?.trim() || null, password: s.password };
}

/** Operator: connects a mailbox; returns its view and the inbound-webhook secret (shown once). */
export async function addEmailAccount(
  rootEm: EntityManager,
  input: EmailAccountInput,
  key: Buffer | null,
): Promise<{ account: EmailAccountView; inboundSecret: string }> {
  const em = forkForWorkspace(rootEm, input.workspaceId);
  const name = input.name.trim();
  if (!name || name.length > 200) throw validation('name must be 1-200 characters');
  const address = parseMailbox(input.emailAddress);
  if ('error' in address || address.mailbox.name)
    throw validation(`email "${input.emailAddress}" ${'error' in address ? address.error : 'must be a bare address'}`);
  const smtp = checkServer('SMTP', input.smtp, { secure: 465, plain: 587 });
  const caps = checkCaps(input);
  const imap = input.imap ? checkServer('IMAP', input.imap, { secure: 993, plain: 143 }) : null;
  const userIds = [...new Set(input.userIds ?? [])];
  if (userIds.length) {
    const found = await em.find(User, { _id: { $in: userIds } }, { fields: ['_id'] });
    const missing = userIds.filter((id) => !found.some((u) => u._id === id));
    if (missing.length) throw validation(`users ${missing.join(', ')} are not users of workspace ${input.workspaceId}`);
  }
  const emailAddress = address.mailbox.address.toLowerCase();
  if (await em.count(EmailAccount, { emailAddress }))
    throw new DomainError('conflict', `an e-mail account for ${emailAddress} already exists in this workspace`);
  const id = newId();
  const secrets: AccountSecrets = {
    ...(smtp.password ? { smtpPassword: smtp.password } : {}),
    ...(imap?.password ? { imapPassword: imap.password } : {}),
  };
  const inboundSecret = `whin_${randomBytes(24).toString('base64url')}`;
  const now = new Date();
  const account = em.create(EmailAccount, {
    _id: id,
    workspaceId: input.workspaceId,
    createdAt: now,
    updatedAt: now,
    name,
    emailAddress,
    displayName: input.displayName?.trim() || null,
    smtpHost: smtp.host,
    smtpPort: smtp.port,
    smtpSecure: smtp.secure,
    smtpUser: smtp.user,
    imapHost: imap?.host ?? null,
    imapPort: imap?.port ?? null,
    imapSecure: imap?.secure ?? true,
    imapUser: imap?.user ?? null,
    secrets: Object.keys(secrets).length ? sealSecret(JSON.stringify(secrets), key, id) : null,
    inboundSecretHash: hashInboundSecret(inboundSecret),
    shared: userIds.length === 0,
    userIds,
    status: 'untested',
    lastTestedAt: null,
    lastError: null,
    imapUidValidity: null,
    imapLastUid: null,
    maxPerHour: caps.maxPerHour,
    maxPerDay: caps.maxPerDay,
  });
  await em.flush();
  return { account: serializeEmailAccount(account), inboundSecret };
}

export async function findAccountForOperator(
  rootEm: EntityManager,
  workspaceId: string,
  id: string,
): Promise<{ em: EntityManager; account: EmailAccount }> {
  const em = forkForWorkspace(rootEm, workspaceId);
  const account = await em.findOne(EmailAccount, { _id: id });
  if (!account) throw notFound('e-mail account');
  return { em, account };
}

/** Operator: sets (or with null lifts) the mailbox's sending caps; the next send counts against them. */
export async function setEmailAccountCaps(
  rootEm: EntityManager,
  workspaceId: string,
  id: string,
  input: EmailAccountCaps,
): Promise<EmailAccountView> {
  const { em, account } = await findAccountForOperator(rootEm, workspaceId, id);
  const caps = checkCaps({
    maxPerHour: input.maxPerHour === undefined ? account.maxPerHour : input.maxPerHour,
    maxPerDay: input.maxPerDay === undefined ? account.maxPerDay : input.maxPerDay,
  });
  account.maxPerHour = caps.maxPerHour;
  account.maxPerDay = caps.maxPerDay;
  account.updatedAt = new Date();
  await em.flush();
  return serializeEmailAccount(account);
}

export async function removeEmailAccount(
  rootEm: EntityManager,
  workspaceId: string,
  id: string,
): Promise<{ id: string; removed: true }> {
  const { em, account } = await findAccountForOperator(rootEm, workspaceId, id);
  em.remove(account);
  await em.flush();
  return { id, removed: true };
}

/** Where the caller may see an account: listed on it, or it is shared. */
export const visibleAccountsWhere = (ctx: Ctx): Record<string, unknown> => ({
  $or: [{ shared: true }, { userIds: { $contains: [ctx.actor.userId] } }],
});

export async function listEmailAccounts(ctx: Ctx): Promise<EmailAccountView[]> {
  const rows = await ctx.em.find(EmailAccount, visibleAccountsWhere(ctx), {
    orderBy: { createdAt: 'asc', _id: 'asc' },
  });
  return rows.map(serializeEmailAccount);
}

export async function visibleAccountIds(ctx: Ctx): Promise<string[]> {
  const rows = await ctx.em.find(EmailAccount, visibleAccountsWhere(ctx), { fields: ['_id'] });
  return rows.map((r) => r._id);
}

/**
 * The account a send uses. `asUser`: the caller must be allowed to see it (API sends); runs of
 * automations and sequences act for the workspace and may use any of its accounts.
 */
export async function accountForSend(
  ctx: Ctx,
  id: string,
  opts: { asUser: boolean; field?: string },
): Promise<EmailAccount> {
  const field = opts.field ?? 'accountId';
  const account = /^[0-9a-f]{24}$/.test(id) ? await ctx.em.findOne(EmailAccount, { _id: id }) : null;
  const visible = account && (!opts.asUser || account.shared || account.userIds.includes(ctx.actor.userId));
  if (!account || !visible)
    throw validation(`${field}: no e-mail account ${id} that you can send from (see GET /email-accounts)`);
  return account;
}
