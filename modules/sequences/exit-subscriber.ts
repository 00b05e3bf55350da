/**
 * Exit conditions and tracking from the outbox: replies, bookings, deal stage and lead status
 * changes signal exactly the running enrollments of that contact/record (matched through the
 * event's links and the enrollment's own entity and person); opens, clicks and replies are
 * written onto the send step they belong to (stats, `stepHistory.*`). Idempotent: a repeated
 * event finds the enrollment finished (the signal is a no-op) and sets the same timestamps.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { FlowStage } from '../deals';
import type { Logger } from '../../platform/logger';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { eventNames } from '../../platform/outbox/event-names';
import type { OutboxEventRecord, Subscriber } from '../../platform/outbox/subscriber';
import { mapLimited } from '../../platform/shared/concurrency';
import type { SequenceWorkflowPort } from './ports';
import { SequenceEnrollment } from './sequence.entity';
import { exitQueued } from './exit-queued';
import type { ExitReason } from './types';

export interface SequenceSubscriberDeps {
  orm: MikroORM;
  log: Logger;
  workflows: SequenceWorkflowPort;
}

const REPLY = eventNames('email_replied');
const SMS = eventNames('sms_received', 'sms_replied');
/**
 * Names the exit subscriber listens to that no code emits (no declared event): kept so that such an
 * event ends enrollments once a feature declares and emits it; the event catalog test fails then.
 */
export const UNEMITTED_EXIT_EVENTS = ['meeting_booked'] as const;
const BOOKING = [...eventNames('booking_created'), ...UNEMITTED_EXIT_EVENTS];
const TRACKING = eventNames('email_opened', 'email_clicked');
export const SEQUENCE_EXIT_EVENTS: readonly string[] = [
  ...REPLY,
  ...SMS,
  ...BOOKING,
  ...TRACKING,
  ...eventNames('deal_stage_changed', 'lead_updated'),
];

type Links = { personId?: string; companyId?: string; leadId?: string; dealId?: string };
const idOf = (v: unknown): string | undefined => (typeof v === 'string' && /^[0-9a-f]{24}$/.test(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

function linksOf(event: OutboxEventRecord): Links {
  const l = obj(event.payload.links);
  const booking = obj(event.payload.booking);
  return {
    personId: idOf(l.personId) ?? idOf(booking.personId),
    companyId: idOf(l.companyId),
    leadId: idOf(l.leadId) ?? idOf(booking.leadId),
    dealId: idOf(l.dealId),
  };
}

/** Running enrollments of the contact/records an event names. */
type Running = Pick<SequenceEnrollment, '_id' | 'workspaceId' | 'workflowId' | 'snapshot' | 'entityType' | 'entityId'>;

async function runningFor(em: EntityManager, links: Links, enrollmentId?: string): Promise<Running[]> {
  const or: Record<string, unknown>[] = [];
  if (enrollmentId) or.push({ _id: enrollmentId });
  if (links.personId) or.push({ personId: links.personId }, { entityType: 'People', entityId: links.personId });
  if (links.leadId) or.push({ entityType: 'Lead', entityId: links.leadId });
  if (links.dealId) or.push({ entityType: 'Deal', entityId: links.dealId });
  if (links.companyId) or.push({ entityType: 'Company', entityId: links.companyId });
  if (!or.length) return [];
  return em.find(
    SequenceEnrollment,
    { status: { $in: ['active', 'paused'] }, $or: or },
    { fields: ['_id', 'workspaceId', 'workflowId', 'snapshot', 'entityType', 'entityId'] },
  );
}

async function stageMatches(em: EntityManager, stages: (string | number)[], toStageId: unknown): Promise<boolean> {
  if (!stages.length) return true;
  if (stages.some((s) => String(s) === String(toStageId))) return true;
  const numbers = stages.filter((s): s is number => typeof s === 'number');
  if (!numbers.length || !idOf(toStageId)) return false;
  const stage = await em.findOne(FlowStage, { _id: toStageId as string }, { fields: ['order'] });
  return !!stage && numbers.includes(Number(stage.order));
}

/** Marks the send step of a message (opened, clicked, replied) once; the first time wins. */
async function track(
  em: EntityManager,
  column: 'opened_at' | 'clicked_at' | 'replied_at',
  messageIds: (string | undefined)[],
  at: Date,
): Promise<void> {
  const ids = messageIds.filter((v): v is string => !!v);
  if (!ids.length) return;
  await em.execute(
    `update sequence_step set ${column} = coalesce(${column}, ?), updated_at = now() where message_id in (${ids.map(() => '?').join(',')})`,
    [at, ...ids],
  );
}

export function sequenceExitSubscriber(deps: SequenceSubscriberDeps): Subscriber {
  const signal = async (targets: Running[], reason: ExitReason): Promise<void> => {
    if (!targets.length) return;
    // Rows whose workflow has not started yet end here (start-queue.ts); the others are signalled.
    const ended = await exitQueued(
      forkForWorkspace(deps.orm.em, targets[0]!.workspaceId),
      targets.map((e) => e._id),
      reason,
    );
    await mapLimited(
      targets.filter((e) => !ended.has(e._id)),
      8,
      (e) => deps.workflows.exit(e.workflowId, reason),
    );
    if (targets.length) deps.log.info({ reason, enrollments: targets.map((e) => e._id) }, 'sequence exit signalled');
  };
  return {
    name: 'sequence-exits',
    handles: (e) => SEQUENCE_EXIT_EVENTS.includes(e.type),
    async handle(event) {
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      const p = event.payload;
      const links = linksOf(event);
      if (TRACKING.includes(event.type)) {
        const email = obj(p.email);
        await track(
          em,
          event.type === 'email_opened' ? 'opened_at' : 'clicked_at',
          [idOf(email._id), idOf(p.outboundMessageId), idOf(event.entityId)],
          event.occurredAt,
        );
        return;
      }
      if (REPLY.includes(event.type)) {
        const inReplyTo = obj(p.inReplyTo);
        await track(em, 'replied_at', [idOf(inReplyTo.emailId)], event.occurredAt);
        const own = inReplyTo.source === 'sequence' ? idOf(inReplyTo.sourceRef) : undefined;
        const targets = (await runningFor(em, links, own)).filter(
          (e) => e.snapshot.settings.exitConditions.onEmailReply,
        );
        return signal(targets, 'email_reply');
      }
      if (SMS.includes(event.type)) {
        const targets = (await runningFor(em, links)).filter((e) => e.snapshot.settings.exitConditions.onSmsReply);
        if (targets.length) {
          await em.execute(
            `update sequence_step s set replied_at = coalesce(replied_at, ?), updated_at = now() where s.enrollment_id in (${targets.map(() => '?').join(',')}) and s.node_type = 'send_sms' and s.sent_at is not null
             and not exists (select 1 from sequence_step later where later.enrollment_id = s.enrollment_id and later.node_type = 'send_sms' and later.sent_at > s.sent_at)`,
            [event.occurredAt, ...targets.map((t) => t._id)],
          );
        }
        return signal(targets, 'sms_reply');
      }
      if (BOOKING.includes(event.type)) {
        return signal(
          (await runningFor(em, links)).filter((e) => e.snapshot.settings.exitConditions.onMeetingBooked),
          'meeting_booked',
        );
      }
      if (event.type === 'deal_stage_changed') {
        const targets: Running[] = [];
        for (const e of await runningFor(em, { dealId: event.entityId })) {
          const rule = e.snapshot.settings.exitConditions.onDealStageChange;
          if (rule.enabled && (await stageMatches(em, rule.stages, p.toStageId))) targets.push(e);
        }
        return signal(targets, 'deal_stage');
      }
      if (event.type === 'lead_updated') {
        const change = obj(obj(p.changes).status);
        if (!('to' in change)) return;
        const to = String(change.to ?? '').toLowerCase();
        const targets = (await runningFor(em, { leadId: event.entityId })).filter((e) => {
          const rule = e.snapshot.settings.exitConditions.onLeadStatusChange;
          return rule.enabled && (!rule.statuses.length || rule.statuses.some((s) => s.toLowerCase() === to));
        });
        return signal(targets, 'lead_status');
      }
    },
  };
}
