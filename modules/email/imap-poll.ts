/**
 * IMAP receiving by polling: each pass reads the mailbox's INBOX from the last imported UID on and
 * feeds every message to the inbound pipeline (receiveRawEmail: one row per Message-ID and mailbox,
 * so a message seen twice is stored once). The position (UIDVALIDITY, last UID) is kept on the
 * account; a changed UIDVALIDITY means the server renumbered the folder: read it again from the
 * start (Message-ID dedupe keeps that idempotent).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import { EmailAccount } from './email-account.entity';
import { accountSecrets } from './email-accounts.service';
import { inboundCtx, receiveRawEmail } from './inbound.service';
import type { ImapLogin, ImapSource, ImapSourceFactory } from '../../platform/ports/imap.port';

/** Messages imported per pass and account: a large backlog is read over several passes. */
export const IMAP_BATCH = 100;

export async function pollImapAccount(
  rootEm: EntityManager,
  workspaceId: string,
  accountId: string,
  secretsKey: string | undefined,
  connect: ImapSourceFactory,
): Promise<{ imported: number; duplicates: number; lastUid: number }> {
  const em = forkForWorkspace(rootEm, workspaceId);
  const account = await em.findOneOrFail(EmailAccount, { _id: accountId });
  if (!account.imapHost) return { imported: 0, duplicates: 0, lastUid: 0 };
  const secrets = accountSecrets(account, parseSecretsKey(secretsKey));
  const source = connect({
    host: account.imapHost,
    port: account.imapPort ?? 993,
    secure: account.imapSecure,
    user: account.imapUser ?? account.emailAddress,
    password: secrets.imapPassword ?? '',
  });
  let imported = 0;
  let duplicates = 0;
  try {
    const { uidValidity } = await source.open();
    const renumbered = account.imapUidValidity !== null && account.imapUidValidity !== uidValidity;
    let lastUid = renumbered ? 0 : (account.imapLastUid ?? 0);
    const ctx = await inboundCtx(rootEm, workspaceId);
    for (const msg of await source.fetchAfter(lastUid, IMAP_BATCH)) {
      const res = await receiveRawEmail(ctx, account._id, msg.source);
      if (res.kind === 'received' && res.duplicate) duplicates++;
      else imported++;
      lastUid = Math.max(lastUid, msg.uid);
      // The position moves after each stored message: a crash mid-batch re-reads at most one (deduped by Message-ID).
      await em.nativeUpdate(EmailAccount, { _id: account._id }, { imapUidValidity: uidValidity, imapLastUid: lastUid });
    }
    if (account.imapUidValidity !== uidValidity)
      await em.nativeUpdate(EmailAccount, { _id: account._id }, { imapUidValidity: uidValidity, imapLastUid: lastUid });
    return { imported, duplicates, lastUid };
  } finally {
    await source.close().catch(() => undefined);
  }
}

/** One pass over every mailbox with IMAP settings (the worker's poller); a failing mailbox is logged and skipped. */
export async function pollAllImapAccounts(
  rootEm: EntityManager,
  secretsKey: string | undefined,
  connect: ImapSourceFactory,
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void },
): Promise<number> {
  // Across workspaces on purpose: each row names its workspace, and each poll is bound to it.
  const rows: { id: string; workspace_id: string }[] = await rootEm
    .fork()
    .execute('select id, workspace_id from email_account where imap_host is not null order by id');
  let imported = 0;
  for (const r of rows) {
    try {
      const res = await pollImapAccount(rootEm, r.workspace_id, r.id, secretsKey, connect);
      imported += res.imported;
      if (res.imported) log.info({ accountId: r.id, workspaceId: r.workspace_id, ...res }, 'IMAP messages imported');
    } catch (err) {
      log.warn({ err, accountId: r.id, workspaceId: r.workspace_id }, 'IMAP poll failed; the next pass retries');
    }
  }
  return imported;
}
