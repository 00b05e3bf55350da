/**
 * Auto-enrollment from CRM events: active sequences whose `triggers` name `entity_created`
 * (entityType + equality filters), `field_change` (entityType, field, operator, value) or
 * `sequence_event` (another sequence's enrollment event) enroll the event's record, with the
 * sequence's own duplicate handling (so a re-delivered event finds the entity already enrolled).
 */
import { raw } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { automationActor, automationActorId } from '../automations/index.actor';
import type { Logger } from '../../platform/logger';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { eventNames } from '../../platform/outbox/event-names';
import type { OutboxEventRecord, Subscriber } from '../../platform/outbox/subscriber';
import { SEQUENCE_EVENTS, type EnrollEntityType, type SequenceTrigger } from './definition.schemas';
import { enrollEntities } from './enroll.service';
import type { SequenceEngineDeps } from './ports';
import { Sequence } from './sequence.entity';
import { settingsOf } from './sequences.service';

const ENTITY_OF_PREFIX: Record<string, EnrollEntityType> = {
  lead: 'Lead',
  person: 'People',
  deal: 'Deal',
  company: 'Company',
};
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const norm = (v: unknown): string => (v === null || v === undefined ? '' : String(v).trim().toLowerCase());

/** `value` equals `expected` (strings case-insensitively; a list matches when any item does). */
function same(value: unknown, expected: unknown): boolean {
  if (Array.isArray(value)) return value.some((v) => same(v, expected));
  return norm(value) === norm(expected);
}

/** What the event is about, as (entity type, id, record) for the trigger kinds; null when nothing. */
export function eventSubject(event: Pick<OutboxEventRecord, 'type' | 'entityId' | 'payload'>): {
  kind: 'created' | 'updated' | 'sequence';
  entityType: EnrollEntityType;
  entityId: string;
  record: Record<string, unknown>;
} | null {
  const m = /^(lead|person|deal|company)_(created|updated)$/.exec(event.type);
  if (m)
    return {
      kind: m[2] as 'created' | 'updated',
      entityType: ENTITY_OF_PREFIX[m[1]!]!,
      entityId: event.entityId,
      record: obj(event.payload[m[1]!]),
    };
  if (event.type.startsWith('sequence_')) {
    const e = obj(event.payload.enrollment);
    if (
      typeof e.entityType === 'string' &&
      typeof e.entityId === 'string' &&
      e.entityType in { Lead: 1, People: 1, Deal: 1, Company: 1 }
    ) {
      return { kind: 'sequence', entityType: e.entityType as EnrollEntityType, entityId: e.entityId, record: e };
    }
  }
  return null;
}

/** Does this trigger fire for the event? Pure. */
export function triggerFires(
  trigger: SequenceTrigger,
  event: Pick<OutboxEventRecord, 'type' | 'entityId' | 'payload'>,
  selfSequenceId: string,
): boolean {
  const subject = eventSubject(event);
  if (!subject) return false;
  switch (trigger.type) {
    case 'entity_created':
      return (
        subject.kind === 'created' &&
        subject.entityType === trigger.entityType &&
        Object.entries(trigger.filters ?? {}).every(([k, v]) =>
          same(
            k.split('.').reduce<unknown>((o, key) => obj(o)[key], subject.record),
            v,
          ),
        )
      );
    case 'field_change': {
      if (subject.kind !== 'updated' || subject.entityType !== trigger.entityType) return false;
      const change = obj(event.payload.changes)[trigger.field];
      if (!change || typeof change !== 'object') return false;
      const to = (change as { to?: unknown }).to;
      if (trigger.operator === 'changed') return true;
      if (trigger.operator === 'equals') return same(to, trigger.value);
      if (trigger.operator === 'not_equals') return !same(to, trigger.value);
      return norm(to).includes(norm(trigger.value));
    }
    case 'sequence_event': {
      const e = obj(event.payload.enrollment);
      // A sequence never feeds itself (no loops through its own completion).
      return (
        subject.kind === 'sequence' &&
        event.type === trigger.event &&
        e.sequenceId === trigger.sourceSequenceId &&
        trigger.sourceSequenceId !== selfSequenceId
      );
    }
  }
}

const HANDLED = eventNames(
  'lead_created',
  'lead_updated',
  'person_created',
  'person_updated',
  'deal_created',
  'deal_updated',
  'company_created',
  'company_updated',
  ...SEQUENCE_EVENTS,
);

export function sequenceAutoEnrollSubscriber(deps: SequenceEngineDeps & { log: Logger; orm: MikroORM }): Subscriber {
  /** One event against the workspace's sequences that have triggers. */
  const enrollFor = async (event: OutboxEventRecord, candidates: Sequence[]): Promise<void> => {
    const subject = eventSubject(event);
    if (!subject) return;
    for (const s of candidates) {
      const settings = settingsOf(s);
      if (!settings.triggers.some((t) => triggerFires(t, event, s._id))) continue;
      if (!settings.allowedEntityTypes.includes(subject.entityType)) continue;
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      const actor = automationActor(event.workspaceId, await automationActorId(em, s.createdBy));
      const [r] = await enrollEntities(
        { em: forkForWorkspace(deps.orm.em, event.workspaceId), actor },
        deps,
        s._id,
        subject.entityType,
        [subject.entityId],
        { source: `auto:${event.type}` },
      );
      deps.log.info(
        { sequenceId: s._id, eventId: event.eventId, success: r?.success, code: r?.code },
        'sequence auto-enrollment',
      );
    }
  };
  return {
    name: 'sequence-auto-enroll',
    handles: (e) => HANDLED.includes(e.type),
    // A batch at a time: the sequences with triggers are read once per workspace of the batch, not once per event
    // (most events concern none).
    async handleBatch(events) {
      const failures = new Map<string, unknown>();
      const byWorkspace = new Map<string, OutboxEventRecord[]>();
      for (const e of events) {
        const list = byWorkspace.get(e.workspaceId);
        if (list) list.push(e);
        else byWorkspace.set(e.workspaceId, [e]);
      }
      for (const [workspaceId, list] of byWorkspace) {
        let candidates: Sequence[];
        try {
          candidates = await forkForWorkspace(deps.orm.em, workspaceId).find(Sequence, {
            isActive: true,
            [raw(`jsonb_array_length(coalesce(settings->'triggers', '[]'::jsonb))`)]: { $gt: 0 },
          });
        } catch (err) {
          for (const e of list) failures.set(e.id, err);
          continue;
        }
        if (!candidates.length) continue;
        for (const e of list) await enrollFor(e, candidates).catch((err: unknown) => failures.set(e.id, err));
      }
      return failures;
    },
  };
}
