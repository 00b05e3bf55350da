import type { EntityManager } from '@mikro-orm/postgresql';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import type { EmailTransport, Mailbox } from '../messaging';
import { probeSmtp } from '../../adapters/smtp/smtp-probe';
import { createSmtpTransport, type SmtpTransportOptions } from '../../adapters/smtp/smtp-transport';
import type { EmailAccount } from './email-account.entity';
import { accountSecrets, findAccountForOperator } from './email-accounts.service';

/**
 * One pooled SMTP transport per connected mailbox, kept while the process lives and rebuilt when
 * the account row changes (updatedAt). Passwords are opened here, inside the process that sends,
 * and never leave it.
 */
export interface AccountTransports {
  /** The transport and sender of one account (already loaded in the caller's workspace). */
  forAccount(account: EmailAccount): { transport: EmailTransport; from: Mailbox };
  /** Closes every pooled connection (process shutdown). */
  close(): void;
}

export function createAccountTransports(
  secretsKey: string | undefined,
  options: SmtpTransportOptions = {},
): AccountTransports {
  const key = parseSecretsKey(secretsKey);
  const cache = new Map<string, { version: number; transport: ReturnType<typeof createSmtpTransport> }>();
  return {
    forAccount(account) {
      const from: Mailbox = account.displayName
        ? { address: account.emailAddress, name: account.displayName }
        : { address: account.emailAddress };
      const version = account.updatedAt.getTime();
      const hit = cache.get(account._id);
      if (hit && hit.version === version) return { transport: hit.transport, from };
      hit?.transport.close();
      const secrets = accountSecrets(account, key);
      const transport = createSmtpTransport(
        {
          host: account.smtpHost,
          port: account.smtpPort,
          secure: account.smtpSecure,
          ...(account.smtpUser ? { user: account.smtpUser, password: secrets.smtpPassword ?? '' } : {}),
          from,
        },
        options,
      );
      cache.set(account._id, { version, transport });
      return { transport, from };
    },
    close() {
      for (const { transport } of cache.values()) transport.close();
      cache.clear();
    },
  };
}

export interface ProbeResult {
  smtp: { ok: boolean; error?: string };
  imap: { ok: boolean; error?: string } | null;
}

/** Operator check of a mailbox: SMTP login (and IMAP login when configured); the outcome is stored on the account. */
export async function testEmailAccount(
  rootEm: EntityManager,
  workspaceId: string,
  id: string,
  secretsKey: string | undefined,
): Promise<{ id: string; status: string } & ProbeResult> {
  const { em, account } = await findAccountForOperator(rootEm, workspaceId, id);
  const secrets = accountSecrets(account, parseSecretsKey(secretsKey));
  const smtp = await probeSmtp({
    host: account.smtpHost,
    port: account.smtpPort,
    secure: account.smtpSecure,
    user: account.smtpUser,
    password: secrets.smtpPassword,
  });
  let imap: ProbeResult['imap'] = null;
  if (account.imapHost) {
    // Loaded on use: imapflow is not needed for the worker to start polling (bench:worker-start).
    const { probeImap } = await import('../../adapters/imap/imap-probe');
    const login = {
      host: account.imapHost,
      port: account.imapPort ?? 993,
      secure: account.imapSecure,
      user: account.imapUser ?? account.emailAddress,
      password: secrets.imapPassword ?? '',
    };
    imap = await probeImap(login, `${account.imapHost}:${account.imapPort}`);
  }
  const ok = smtp.ok && (imap?.ok ?? true);
  account.status = ok ? 'ok' : 'failing';
  account.lastTestedAt = new Date();
  account.lastError = ok ? null : [smtp.error, imap?.error].filter(Boolean).join('; ');
  await em.flush();
  return { id, status: account.status, smtp, imap };
}
