// The send steps of a sequence (send_email, send_sms): recipients, content (templates, AI blocks, the unsubscribe
// link), the mailbox's send slot, and the send under the step's key.
import type { EntityManager } from '@mikro-orm/postgresql';
import { renderTemplate } from '../../platform/shared/placeholders.pure';
import type { Ctx } from '../../platform/context';
import { NO_TRACK, renderStoredTemplate } from '../email';
import { MailboxCapReached, renderStoredSmsTemplate } from '../messaging';
import { recipientsFor, type Selection } from './recipients';
import { sendKey, sendSequenceEmail, sendSequenceSms, type SendOutcome } from './send';
import { reserveSendSlot } from './send-interval';
import type { SequenceEnrollment } from './sequence.entity';
import { nextSendTime } from './send-window.pure';
import { findStep, mirrorWithoutStatus, upsertStep } from './step-rows';
import type { SendWaitReason, StepActivityInput, StepActivityResult } from './types';
import { unsubscribeUrl } from './unsubscribe';
import { renderAiBlocks } from './sequence-step-ai';
import {
  addressOf,
  DeferredStep,
  linksIn,
  PLACEHOLDERS,
  recipientZone,
  requireMessaging,
  sendConditionHolds,
  type StepDeps,
} from './sequence-step-context';

export async function sendStep(
  deps: StepDeps,
  em: EntityManager,
  ctx: Ctx,
  e: SequenceEnrollment,
  node: StepActivityInput['node'],
  context: Record<string, unknown>,
  /** StepActivityInput.deferrals: a send that may not go out yet answers `deferred` (the run waits on a timer). */
  deferrals = false,
): Promise<StepActivityResult> {
  const d = node.data;
  const tz = e.snapshot.settings.sendSettings.timezone;
  const channel = node.type === 'send_sms' ? 'sms' : 'email';
  const skipped = async (reason: string): Promise<StepActivityResult> => {
    const output = { skipped: true, reason };
    await upsertStep(em, e, node.id, node.type, { status: 'skipped', output });
    return { status: 'skipped', output };
  };
  if (!sendConditionHolds(d, context)) return skipped('sendCondition not met');
  const custom = channel === 'email' ? d.customRecipient : d.customPhone;
  const recipients = await recipientsFor(
    em,
    context,
    {
      recipientType: String(d.recipientType ?? 'contact'),
      companyRecipientTarget: String(d.companyRecipientTarget ?? 'contact_person'),
      companyContactSelection: (d.companyContactSelection ?? { mode: 'first', fallback: 'skip' }) as Selection,
      field: String((channel === 'email' ? d.recipientField : d.phoneField) ?? 'primary'),
      custom:
        typeof custom === 'string' ? renderTemplate(custom, context, { ...PLACEHOLDERS, timezone: tz }).text : null,
    },
    channel,
  );
  if ('skip' in recipients) return skipped(recipients.skip);
  const settings = e.snapshot.settings;
  /** Not yet: the step row waits with why and until when, so does the enrollment; the run sleeps until then. */
  const defer = async (
    waitReason: SendWaitReason,
    at: number,
    extra: Record<string, unknown> = {},
  ): Promise<StepActivityResult> => {
    const nextActionAt = new Date(at).toISOString();
    const output = { ...extra, waitReason, nextActionAt };
    await upsertStep(em, e, node.id, node.type, { status: 'waiting', output });
    await mirrorWithoutStatus(em, {
      workspaceId: e.workspaceId,
      enrollmentId: e._id,
      currentNodeId: node.id,
      nextActionAt,
      waitReason,
    });
    return { status: 'deferred', waitReason, nextActionAt, waitLeftMs: Math.max(0, at - Date.now()), output };
  };
  if (deferrals) {
    // Business hours, weekends and SMS quiet hours in the recipient's own zone when the records have one.
    const zone = recipientZone(e, context) ?? settings.sendSettings.timezone;
    const now = Date.now();
    const at = nextSendTime(now, { ...settings.sendSettings, timezone: zone }, channel, d.ignoreBusinessHours === true);
    if (at - now > 1000) return defer('send_window', at, { timeZone: zone });
  }
  const owner = (context.owner ?? null) as Record<string, unknown> | null;
  const sendDeps = { messaging: requireMessaging(deps), staleClaimMs: deps.staleClaimMs };
  const links = { ...e.links };
  let sent: SendOutcome[];
  if (channel === 'email') {
    const blocks = (d.aiBlocks ?? []) as { id: string; prompt: string }[];
    const templateId = typeof d.templateId === 'string' && d.templateId.trim() ? d.templateId.trim() : null;
    const stepSubject = d.subject
      ? renderTemplate(String(d.subject), context, { ...PLACEHOLDERS, timezone: tz }).text
      : '';
    // A template is rendered against the enrollment's records; a subject on the step overrides the template's.
    const content = templateId
      ? await renderStoredTemplate(
          ctx,
          templateId,
          context,
          { subject: stepSubject || undefined },
          'send_email.templateId',
        )
      : {
          subject: stepSubject,
          html: renderTemplate(String(d.body ?? ''), context, { ...PLACEHOLDERS, timezone: tz, escape: 'html' }).text,
          text: undefined,
        };
    const subject = await renderAiBlocks(deps, content.subject, blocks, context, tz, false);
    let html = content.html ? await renderAiBlocks(deps, content.html, blocks, context, tz, true) : '';
    if (d.unsubscribeLinkEnabled === true) {
      const link = `<p style="font-size:12px;color:#666"><a ${NO_TRACK} href="${unsubscribeUrl(deps.config, e)}">${typeof d.unsubscribeLinkPreset === 'string' && d.unsubscribeLinkPreset ? d.unsubscribeLinkPreset : 'Unsubscribe'}</a></p>`;
      html = /<\/body>/i.test(html) ? html.replace(/<\/body>/i, `${link}</body>`) : html + link;
    }
    const senderType = (d.senderType ?? settings.defaultSenderType ?? 'fixed') as string;
    const ownerEmail = typeof owner?.email === 'string' ? owner.email : undefined;
    // The mailbox: the step's senderAccountId, else the sequence's default sender id when it names a connected
    // mailbox.
    const accountId =
      typeof d.senderAccountId === 'string' && d.senderAccountId.trim()
        ? d.senderAccountId.trim()
        : settings.defaultSenderId && /^[0-9a-f]{24}$/.test(settings.defaultSenderId)
          ? settings.defaultSenderId
          : undefined;
    const from =
      !accountId && senderType === 'owner' && ownerEmail && deps.messaging()?.transport.defaultFrom
        ? `${String(owner?.fullName ?? '').replace(/[<>"]/g, '') || 'Sales'} <${addressOf(deps.messaging()!.transport.defaultFrom!)}>`
        : undefined;
    // emailIntervalSeconds: one slot per send and mailbox, reserved once per step (kept on the step row).
    const interval = settings.sendSettings.emailIntervalSeconds ?? 0;
    let slotAt: string | undefined;
    if (interval > 0) {
      const prior = await findStep(em, e.workspaceId, e._id, node.id);
      const kept = typeof prior?.output?.slotAt === 'string' ? new Date(prior.output.slotAt) : null;
      const slot = kept ?? (await reserveSendSlot(em, e.workspaceId, accountId ?? 'fallback', interval));
      if (!kept)
        await upsertStep(em, e, node.id, node.type, {
          status: 'waiting',
          output: { slotAt: slot.toISOString(), reason: 'emailIntervalSeconds' },
        });
      slotAt = slot.toISOString();
      const wait = slot.getTime() - Date.now();
      if (wait > 500) {
        if (deferrals) return defer('email_interval', slot.getTime(), { slotAt });
        throw new DeferredStep(wait);
      }
    }
    // Tracking as the sequence's settings say, where tracking links can be signed (CRM_SECRETS_KEY).
    const track = (sendDeps.messaging.tracking && settings.trackingSettings) || {
      trackOpens: false,
      trackClicks: false,
    };
    const send = sendSequenceEmail(ctx, sendDeps, {
      to: recipients.to,
      subject: subject.replace(/[\r\n]+/g, ' '),
      html: html || undefined,
      text: 'text' in content ? content.text : undefined,
      from,
      accountId,
      replyTo: senderType === 'owner' ? ownerEmail : undefined,
      trackOpens: track.trackOpens,
      trackClicks: track.trackClicks,
      links,
      linksRead: linksIn(links, context),
      key: sendKey(e._id, node.id),
    });
    try {
      sent = [await send];
    } catch (err) {
      // The mailbox's maxPerHour / maxPerDay is reached (send-quota.ts): the send waits for the next window.
      if (!(err instanceof MailboxCapReached)) throw err;
      if (!deferrals) throw new DeferredStep(Math.max(1000, err.retryAt.getTime() - Date.now()));
      return defer('mailbox_cap', err.retryAt.getTime(), {
        ...(slotAt ? { slotAt } : {}),
        accountId: err.accountId,
        period: err.period,
        cap: err.cap,
      });
    }
  } else {
    // An SMS template (smsMode template or a templateId) is read and rendered now, like an e-mail template.
    const templateId = typeof d.templateId === 'string' && d.templateId.trim() ? d.templateId.trim() : null;
    const text = templateId
      ? (
          await renderStoredSmsTemplate(
            ctx,
            templateId,
            context,
            { ...PLACEHOLDERS, timezone: tz },
            'send_sms.templateId',
          )
        ).text
      : renderTemplate(String(d.message ?? ''), context, { ...PLACEHOLDERS, timezone: tz }).text;
    const message = await renderAiBlocks(
      deps,
      text,
      (d.aiBlocks ?? []) as { id: string; prompt: string }[],
      context,
      tz,
      false,
    );
    const senderType = String(d.senderType ?? 'fixed');
    const from =
      senderType === 'alphanumeric'
        ? String(d.senderId)
        : senderType === 'owner' && typeof owner?.phone === 'string'
          ? owner.phone
          : (typeof d.fromNumber === 'string' && d.fromNumber) || settings.defaultSmsNumber || undefined;
    sent = [];
    for (const [i, to] of recipients.to.entries())
      sent.push(await sendSequenceSms(ctx, sendDeps, { to, message, from, links, key: sendKey(e._id, node.id, i) }));
  }
  const output = { to: recipients.to, via: recipients.via, messages: sent };
  await upsertStep(em, e, node.id, node.type, {
    status: 'completed',
    output,
    messageId: sent[0]?.outboundMessageId ?? null,
    sentAt: new Date(),
  });
  return { status: 'completed', output };
}
