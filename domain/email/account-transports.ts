import { createTransport } from 'nodemailer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseSecretsKey } from '../shared/secret-box';
import type { EmailTransport, Mailbox } from '../messaging/ports';
import { createSmtpTransport, smtpDeliveryError, type SmtpTransportOptions } from '../../adapters/smtp/smtp-transport';
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
  const smtp = await (async () => {
    const t = createTransport({
      host: account.smtpHost,
      port: account.smtpPort,
      secure: account.smtpSecure,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 15_000,
      ...(account.smtpUser ? { auth: { user: account.smtpUser, pass: secrets.smtpPassword ?? '' } } : {}),
    });
    try {
      await t.verify();
      return { ok: true };
    } catch (err) {
      return { ok: false, error: smtpDeliveryError(err, `${account.smtpHost}:${account.smtpPort}`).message };
    } finally {
      t.close();
    }
  })();
  const imap = account.imapHost ? await probeImap(account, secrets.imapPassword) : null;
  const ok = smtp.ok && (imap?.ok ?? true);
  account.status = ok ? 'ok' : 'failing';
  account.lastTestedAt = new Date();
  account.lastError = ok ? null : [smtp.error, imap?.error].filter(Boolean).join('; ');
  await em.flush();
  return { id, status: account.status, smtp, imap };
}

async function probeImap(
  account: EmailAccount,
  password: string | undefined,
): Promise<{ ok: boolean; error?: string }> {
  // Loaded on use: imapflow is not needed for the worker to start polling (bench:worker-start).
  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: account.imapHost!,
    port: account.imapPort ?? 993,
    secure: account.imapSecure,
    logger: false,
    auth: { user: account.imapUser ?? account.emailAddress, pass: password ?? '' },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 15_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.logout();
    return { ok: true };
  } catch (err) {
    client.close();
    return {
      ok: false,
      error: `IMAP ${account.imapHost}:${account.imapPort}: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}
