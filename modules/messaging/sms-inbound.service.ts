import { createHash, randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { Activity, serializeActivity } from '../timeline';
import { secretMatches } from '../../platform/shared/secret-match';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { emit } from '../../platform/outbox/emit';
import { createdEvent } from '../../platform/shared/changes';
import { Person } from '../people';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { User, Workspace } from '../workspaces';
import type { MessageLinks } from './outbound.service';
import { SmsMessage, SmsWorkspaceSettings, type SmsStatus } from './sms-message.entity';
import { phoneWhere, resolveContact, serializeSms } from './sms-messages.service';
import type { SmsWebhookResultView } from './sms.views';
import { counterpartyOf, smsThreadColumns } from './sms-phone';

/**
 * The gateway's webhook (POST /api/webhooks/sms/:workspaceId): inbound messages and delivery
 * reports, authenticated by the workspace's webhook secret in `x-webhook-secret` (only its SHA-256
 * is stored; it is shown once when created and never enters Temporal).
 */

export const SMS_WEBHOOK_SECRET_PREFIX = 'smswh_';
const MAX_INBOUND_LENGTH = 10_000;

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** Creates or replaces the workspace's webhook secret; the plain secret is returned only here. */
export async function rotateWebhookSecret(ctx: Ctx): Promise<{ secret: string; hint: string }> {
  const secret = `${SMS_WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64url')}`;
  const hint = secret.slice(-4);
  const existing = await ctx.em.findOne(SmsWorkspaceSettings, {});
  if (existing) {
    existing.webhookSecretHash = sha256(secret);
    existing.webhookSecretHint = hint;
  } else {
    ctx.em.persist(
      createRecord(ctx, SmsWorkspaceSettings, { webhookSecretHash: sha256(secret), webhookSecretHint: hint }),
    );
  }
  await ctx.em.flush();
  return { secret, hint };
}

export async function webhookSecretStatus(ctx: Ctx): Promise<{ secretSet: boolean; secretHint: string | null }> {
  const s = await ctx.em.findOne(SmsWorkspaceSettings, {});
  return { secretSet: !!s?.webhookSecretHash, secretHint: s?.webhookSecretHint ? `****${s.webhookSecretHint}` : null };
}

const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const providerId = z.union([text(1000), z.number()]).transform((v) => String(v));

const inboundBody = z.object({
  type: z.literal('inbound').optional(),
  from: text(40).min(1, 'is required'),
  to: text(40).optional(),
  message: text(MAX_INBOUND_LENGTH).optional(),
  body: text(MAX_INBOUND_LENGTH).optional().describe('alias of message'),
  text: text(MAX_INBOUND_LENGTH).optional().describe('alias of message'),
  id: providerId.optional(),
  messageId: providerId.optional().describe('alias of id'),
});

/** Gateway status words → our status; anything else is refused (400) so a typo is visible to the gateway operator. */
const REPORT_STATUS: Record<string, SmsStatus> = {
  delivered: 'delivered',
  delivrd: 'delivered',
  sent: 'sent',
  accepted: 'sent',
  queued: 'sent',
  enroute: 'sent',
  buffered: 'sent',
  failed: 'failed',
  undelivered: 'failed',
  undeliv: 'failed',
  rejected: 'failed',
  expired: 'failed',
  deleted: 'failed',
};

const reportBody = z.object({
  type: z.enum(['delivery_report', 'status']),
  id: providerId.optional(),
  messageId: providerId.optional().describe('alias of id'),
  reference: text(100).optional().describe('our id: the Idempotency-Key of the send'),
  status: z
    .string()
    .trim()
    .toLowerCase()
    .refine((s) => s in REPORT_STATUS, { message: `must be one of ${Object.keys(REPORT_STATUS).join(', ')}` }),
  error: text(2000).optional(),
});

export const smsWebhookBody = z.union([reportBody, inboundBody]);

export interface SmsWebhookCall {
  workspaceId: string;
  secret: string | undefined;
  body: unknown;
}

/** Verifies the call and returns a context acting as the workspace's oldest owner. */
async function authenticate(orm: MikroORM, call: SmsWebhookCall): Promise<Ctx> {
  if (!isId(call.workspaceId)) throw notFound('workspace');
  const em = forkForWorkspace(orm.em, call.workspaceId);
  const workspace = await em.findOne(Workspace, { _id: call.workspaceId });
  if (!workspace) throw notFound('workspace');
  const settings = await em.findOne(SmsWorkspaceSettings, {});
  if (!settings?.webhookSecretHash)
    throw new DomainError(
      'unauthenticated',
      'no SMS webhook secret is set for this workspace: create one with POST /api/v1/sms/webhook-secret',
    );
  if (!secretMatches(call.secret === undefined ? undefined : sha256(call.secret), settings.webhookSecretHash))
    throw new DomainError('unauthenticated', 'missing or wrong x-webhook-secret header');
  if (workspace.status !== 'active') throw new DomainError('forbidden', 'workspace is not active');
  const owner = await em.findOne(User, { role: 'owner' }, { orderBy: { createdAt: 'asc' } });
  return {
    em,
    actor: { workspaceId: call.workspaceId, userId: owner?._id ?? call.workspaceId, role: 'owner', scopes: [] },
  };
}

export async function receiveSmsWebhook(orm: MikroORM, call: SmsWebhookCall): Promise<SmsWebhookResultView> {
  const ctx = await authenticate(orm, call);
  const parsed = smsWebhookBody.safeParse(call.body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw validation(`body: ${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const body = parsed.data;
  if ('status' in body) return deliveryReport(ctx, body);
  return receiveInbound(ctx, body);
}

async function linksFor(
  ctx: Ctx,
  phoneNumber: string,
): Promise<{ links: MessageLinks; contact: Awaited<ReturnType<typeof resolveContact>> }> {
  const contact = await resolveContact(ctx, phoneNumber);
  if (!contact) return { links: {}, contact };
  if (contact.entityType === 'company') return { links: { companyId: contact._id }, contact };
  if (contact.entityType === 'lead') return { links: { leadId: contact._id }, contact };
  const person = await ctx.em.findOne(Person, { _id: contact._id });
  return { links: { personId: contact._id, ...(person?.companyId ? { companyId: person.companyId } : {}) }, contact };
}

async function receiveInbound(ctx: Ctx, body: z.infer<typeof inboundBody>): Promise<SmsWebhookResultView> {
  const message = body.message ?? body.body ?? body.text;
  if (message === undefined) throw validation('body: message: is required');
  const counterparty = counterpartyOf(body.from);
  if (!counterparty) throw validation('body: from: is not a phone number');
  const providerMessageId = body.id ?? body.messageId ?? null;
  if (providerMessageId) {
    const seen = await ctx.em.findOne(SmsMessage, { direction: 'inbound', providerMessageId });
    if (seen) return { sms: serializeSms(seen), duplicate: true };
  }
  const { links, contact } = await linksFor(ctx, counterparty.phoneNumber);
  const to = body.to?.trim() || '';
  try {
    const sms = await inTransaction(ctx, async () => {
      const now = new Date();
      const sms = createRecord(ctx, SmsMessage, {
        direction: 'inbound',
        from: counterparty.phoneNumber,
        to,
        body: message,
        status: 'received',
        providerMessageId,
        unread: true,
        starred: false,
        ...smsThreadColumns(counterparty, links),
        source: 'gateway',
        sourceRef: null,
        activityId: null,
        error: null,
        sentAt: null,
        deliveredAt: null,
      });
      if (contact) {
        const main = links.leadId
          ? { entityType: 'lead', entityId: links.leadId }
          : links.personId
            ? { entityType: 'person', entityId: links.personId }
            : { entityType: 'company', entityId: links.companyId! };
        const activity = createRecord(ctx, Activity, {
          type: 'sms',
          system: false,
          summary: `SMS from ${counterparty.phoneNumber}`,
          description: message,
          companyId: links.companyId ?? null,
          personId: links.personId ?? null,
          dealId: null,
          leadId: links.leadId ?? null,
          ...main,
          noteRef: null,
          callRef: null,
          taskRef: null,
          date: now,
          metadata: { direction: 'inbound', from: counterparty.phoneNumber, to, smsId: sms._id },
          userId: null,
          ownerId: null,
        });
        sms.activityId = activity._id;
        emit(ctx, { ...createdEvent('activity', { activity: serializeActivity(activity) }), entityId: activity._id });
      }
      const payload = { sms: { _id: sms._id, from: sms.from, to: sms.to, body: sms.body }, links };
      emit(ctx, { type: 'sms_received', entityType: 'sms', entityId: sms._id, payload });
      // A reply: we texted this number before (the latest such SMS is the one replied to).
      const ours = await ctx.em.findOne(
        SmsMessage,
        { $and: [phoneWhere(counterparty.normalized), { direction: 'outbound' }] } as FilterQuery<SmsMessage>,
        { orderBy: { createdAt: 'desc', _id: 'desc' } },
      );
      if (ours) {
        emit(ctx, {
          type: 'sms_replied',
          entityType: 'sms',
          entityId: sms._id,
          payload: {
            ...payload,
            inReplyTo: {
              smsId: ours._id,
              source: ours.source,
              ...(ours.sourceRef ? { sourceRef: ours.sourceRef } : {}),
            },
          },
        });
      }
      return sms;
    });
    return { sms: serializeSms(sms), contact };
  } catch (err) {
    // The same message delivered twice at once: the unique index kept one.
    if (err instanceof UniqueConstraintViolationException && providerMessageId) {
      const seen = await ctx.em.fork().findOne(SmsMessage, { direction: 'inbound', providerMessageId });
      if (seen) return { sms: serializeSms(seen), duplicate: true };
    }
    throw err;
  }
}

async function deliveryReport(ctx: Ctx, body: z.infer<typeof reportBody>): Promise<SmsWebhookResultView> {
  const providerMessageId = body.id ?? body.messageId;
  if (!providerMessageId && !body.reference)
    throw validation('body: id (the gateway message id) or reference (our id) is required');
  const where =
    body.reference && isId(body.reference) ? { _id: body.reference } : providerMessageId ? { providerMessageId } : null;
  const sms = where
    ? await ctx.em.findOne(SmsMessage, { ...where, direction: 'outbound' }, { orderBy: { createdAt: 'desc' } })
    : null;
  // Gateways retry anything but 2xx: an unknown message is acknowledged and ignored.
  if (!sms) return { matched: false };
  const status = REPORT_STATUS[body.status]!;
  // Reports can arrive out of order: "sent" only moves a message that has no outcome yet, and
  // nothing undoes "delivered".
  const applies =
    status === 'sent'
      ? sms.status === 'queued' || sms.status === 'unknown'
      : sms.status !== 'delivered' && sms.status !== status;
  if (applies) {
    sms.status = status;
    if (status === 'delivered') sms.deliveredAt = new Date();
    if (status === 'failed') sms.error = body.error ?? `the gateway reported ${body.status}`;
    if (providerMessageId && !sms.providerMessageId) sms.providerMessageId = providerMessageId;
    await ctx.em.flush();
  }
  return { matched: true, sms: serializeSms(sms) };
}
