// A bulk send's world for tests of domain/email/bulk-send.ts: a workspace, a connected mailbox, `recipients` items
// and a send through a given transport; and a transport that holds every message until released.
import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { sendBulkMessages, type BulkItem, type BulkLease, type BulkOutcome } from '../../modules/email/bulk-send';
import { createSendThrottle } from '../../modules/email/bulk-throttle';
import { EmailBulk } from '../../modules/email/email-bulk.entity';
import { addEmailAccount } from '../../modules/email/email-accounts.service';
import { newId } from '../../platform/ids';
import type { EmailTransport } from '../../platform/ports/messaging.port';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createWorkspace } from '../../modules/workspaces/workspaces.service';
import { unique } from './factories';
import { ok, scripted } from './transports';

export interface World {
  ctx: () => Ctx;
  accountId: string;
  items: BulkItem[];
  send(
    transport: EmailTransport,
    opts?: { staleClaimMs?: number; firstStart?: boolean; lease?: BulkLease; concurrency?: number },
  ): Promise<BulkOutcome[]>;
  /** A bulk send row for this world's items, its lease held by `token` (what an attempt writes when it starts). */
  takeLease(token: string): Promise<BulkLease>;
}

export async function world(orm: MikroORM, recipients = 1): Promise<World> {
  const { workspaceId, userId } = await createWorkspace(orm.em.fork(), { name: `Bulk send ${unique()}` });
  const key = randomBytes(32);
  const { account } = await addEmailAccount(
    orm.em.fork(),
    {
      workspaceId,
      name: 'Sales',
      emailAddress: 'sales@acme.example',
      displayName: 'Acme Sales',
      smtp: { host: '127.0.0.1', port: 2525, secure: false, user: 'u', password: 'p' },
    },
    key,
  );
  const ctx = (): Ctx => ({
    em: forkForWorkspace(orm.em, workspaceId),
    actor: { workspaceId, userId, role: 'admin', scopes: ['read', 'write'] },
  });
  const bulkId = newId();
  const bulkRef = `bulk:${bulkId}`;
  const items: BulkItem[] = Array.from({ length: recipients }, (_, i) => ({
    recipientId: newId(),
    key: `${bulkRef}:${i}`,
    render: () => ({
      recipientId: items[i]!.recipientId,
      key: `${bulkRef}:${i}`,
      to: `r${i}@example.com`,
      subject: `Hello R${i}`,
      html: `<p>Hi R${i}</p>`,
      links: {},
    }),
  }));
  return {
    ctx,
    accountId: String(account._id),
    items,
    send: (transport, opts = {}) =>
      sendBulkMessages(
        ctx(),
        {
          accountId: String(account._id),
          trackOpens: false,
          bulkRef,
          items,
          firstStart: opts.firstStart ?? false,
          lease: opts.lease,
        },
        {
          email: {
            transport,
            accounts: { forAccount: () => ({ transport, from: { address: 'sales@acme.example' } }), close() {} },
            staleClaimMs: opts.staleClaimMs,
          },
          throttle: createSendThrottle(0),
          concurrency: opts.concurrency ?? 4,
        },
      ),
    async takeLease(token) {
      const c = ctx();
      const found = await c.em.findOne(EmailBulk, { _id: bulkId });
      if (found) found.lease = token;
      else
        c.em.persist(
          c.em.create(EmailBulk, {
            _id: bulkId,
            workspaceId,
            createdAt: new Date(),
            updatedAt: new Date(),
            accountId: String(account._id),
            subject: 'Hello',
            text: 'Hi',
            trackOpens: false,
            immediate: false,
            status: 'sending',
            total: recipients,
            createdBy: userId,
            lease: token,
          }),
        );
      await c.em.flush();
      return { bulkId, token };
    },
  };
}

/** A transport that holds every message until released (release() lets all held and later ones through). */
export function holding() {
  const held: (() => void)[] = [];
  let open = false;
  const t = scripted((m) => (open ? ok(m) : new Promise((resolve) => held.push(() => void ok(m).then(resolve)))));
  return Object.assign(t, {
    release() {
      open = true;
      for (const r of held.splice(0)) r();
    },
  });
}
