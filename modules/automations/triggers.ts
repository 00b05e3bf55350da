/**
 * Which CRM events start which automations: `matchesTrigger(trigger, event)` for one pair, and
 * `candidateTriggerTypes(eventType)` to narrow the automations worth loading for an event.
 * Pure; the event is the outbox row (`type`, `entityType`, `payload`).
 */
import {
  BOOKING_TRIGGERS,
  RECORD_CHANGE_TYPES,
  RECORD_ENTITY_TYPES,
  SEQUENCE_TRIGGERS,
  TICKET_CHANGE_TRIGGERS,
  type TriggerType,
} from './definition.schemas';
import { isPlainObject } from '../../platform/shared/zod-kit';

export interface TriggerRef {
  triggerType: string;
  config?: Record<string, unknown> | null;
}

export interface CrmEvent {
  type: string;
  entityType: string;
  entityId?: string;
  payload: Record<string, unknown>;
}

export type RecordEntity = Exclude<(typeof RECORD_ENTITY_TYPES)[number], 'all'>;
export type RecordChangeType = (typeof RECORD_CHANGE_TYPES)[number];

/** The tag triggers' entityType values → event entity names; `all` means these three. */
export const TAG_ENTITY_MAP = { Lead: 'lead', People: 'person', Company: 'company' } as const;

/** Placeholder namespaces each trigger loads into the context (the spec's Events table). */
export const TRIGGER_NAMESPACES: Record<TriggerType, readonly string[]> = (() => {
  const out: Partial<Record<TriggerType, readonly string[]>> = {};
  const set = (types: readonly TriggerType[], ns: string[]) => types.forEach((t) => (out[t] = ns));
  set(['lead_created', 'lead_updated'], ['lead', 'person', 'company', 'owner']);
  set(['company_updated'], ['company', 'owner']);
  set(['person_updated'], ['person', 'company', 'owner']);
  set(
    ['deal_created', 'deal_updated', 'deal_won', 'deal_lost', 'deal_stage_changed'],
    ['deal', 'company', 'person', 'owner'],
  );
  set(['call_completed', 'call_answered'], ['call', 'lead', 'deal', 'owner']);
  set(['email_received', 'email_opened', 'email_replied'], ['email', 'lead', 'person']);
  set(['sms_received', 'sms_replied'], ['sms', 'lead', 'person']);
  set(['event_created'], ['event', 'owner']);
  set(['agent_field_change', 'agent_new_company', 'agent_any'], ['agent', 'company', 'person', 'owner']);
  set(['sales_analytics_done'], ['call', 'analytics', 'owner']);
  set(['transcription_ready'], ['call', 'transcript']);
  set(['offer_created'], ['offer', 'deal', 'company']);
  set(
    ['offer_sent', 'offer_viewed', 'offer_accepted', 'offer_rejected', 'offer_expired', 'offer_pdf_downloaded'],
    ['offer', 'deal', 'company', 'owner'],
  );
  set(
    [
      'contract_sent',
      'contract_completed',
      'contract_expired',
      'contract_voided',
      'contract_period_ending',
      'contract_extended',
    ],
    ['contract', 'offer', 'deal', 'company', 'owner'],
  );
  set(
    [
      'contract_viewed',
      'contract_signed',
      'contract_declined',
      'contract_signer_corrected',
      'contract_invitation_resent',
    ],
    ['contract', 'offer', 'deal', 'company', 'owner', 'signer'],
  );
  set(BOOKING_TRIGGERS, ['booking', 'person']);
  set(['calculator_submission', 'calculator_submission_processed'], ['calculator', 'lead']);
  set(['reply_intent_detected'], ['email', 'lead', 'person', 'ai']);
  set(
    ['lifecycle_stage_changed', 'engagement_risk_detected', 'winback_opportunity'],
    ['person', 'company', 'lead', 'owner'],
  );
  set(['support_ticket_created'], ['ticket', 'person', 'company']);
  set(TICKET_CHANGE_TRIGGERS, ['ticket', 'person', 'company', 'owner']);
  set(['tag_added', 'tag_removed'], ['lead', 'person', 'company', 'owner']);
  set(['user_joined_workspace'], ['owner']);
  set(['ads_lead_form_submitted'], ['lead', 'ads', 'person', 'company']);
  set(['custom_object_created', 'custom_object_updated'], ['custom_record', 'owner']);
  set(['record_created'], ['lead', 'company', 'person', 'deal', 'offer', 'event', 'ticket']);
  set(['record_changed'], ['lead', 'deal', 'company', 'person', 'owner']);
  set(['scheduled'], []);
  set(['webhook'], ['webhookData']);
  set(SEQUENCE_TRIGGERS, ['enrollment', 'lead', 'person', 'company', 'deal', 'owner']);
  return out as Record<TriggerType, readonly string[]>;
})();

const ENTITY_ALIASES: Record<string, RecordEntity> = {
  people: 'person',
  persons: 'person',
  contact: 'person',
  supportticket: 'support_ticket',
  ticket: 'support_ticket',
  'support-ticket': 'support_ticket',
  customobjectrecord: 'custom_object',
  custom_record: 'custom_object',
  custom_object_record: 'custom_object',
  calendar_event: 'event',
};
const RECORD_ENTITIES = RECORD_ENTITY_TYPES.filter((t): t is RecordEntity => t !== 'all');

/** `People`, `SupportTicket`, `lead` … → the record_* entity name, or null. */
export function normalizeEntity(name: unknown): RecordEntity | null {
  if (typeof name !== 'string') return null;
  const s = name.trim().toLowerCase();
  if ((RECORD_ENTITIES as readonly string[]).includes(s)) return s as RecordEntity;
  return ENTITY_ALIASES[s] ?? null;
}

/** The entity a `<entity>_<suffix>` event is about (the type's prefix wins over entityType). */
export function entityOf(event: CrmEvent, suffix: string): RecordEntity | null {
  if (event.type.endsWith(suffix)) {
    const fromType = normalizeEntity(event.type.slice(0, -suffix.length));
    if (fromType) return fromType;
  }
  return normalizeEntity(event.entityType);
}

/** What kind of record change an event is, for record_changed (null when it is none). */
export function changeOf(event: CrmEvent): { entity: RecordEntity; change: RecordChangeType } | null {
  if (event.type === 'tag_added' || event.type === 'tag_removed') {
    const entity = normalizeEntity(event.payload.entityType) ?? normalizeEntity(event.entityType);
    return entity ? { entity, change: event.type } : null;
  }
  if (event.type.endsWith('_stage_changed')) {
    const entity = normalizeEntity(event.type.slice(0, -'_stage_changed'.length));
    return entity ? { entity, change: 'stage_changed' } : null;
  }
  if (event.type.endsWith('_updated')) {
    const entity = entityOf(event, '_updated');
    // An update that changed nothing (empty `changes`) is not a change.
    const changes = event.payload.changes;
    if (!entity || (isPlainObject(changes) && Object.keys(changes).length === 0)) return null;
    return { entity, change: 'field_changed' };
  }
  return null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
const get = (o: unknown, key: string): unknown => (isPlainObject(o) ? o[key] : undefined);
/** The first non-empty value among payload paths such as ['booking', 'bookingConfigId']. */
const pick = (payload: Record<string, unknown>, ...paths: string[][]): string => {
  for (const path of paths) {
    const v = str(path.reduce<unknown>((cur, key) => get(cur, key), payload));
    if (v) return v;
  }
  return '';
};

/** An id filter: empty (or `any`) accepts every event; otherwise the ids must be equal. */
const idFilter = (wanted: unknown, actual: string): boolean => {
  const w = str(wanted);
  return w === '' || w.toLowerCase() === 'any' || w === actual;
};

/** Entity types from a config value: an array or a single string; empty or `all` → null (any). */
export function entityList(v: unknown): RecordEntity[] | null {
  const raw = Array.isArray(v) ? v : typeof v === 'string' && v.trim() ? v.split(',') : [];
  const names = raw.map((x) => (typeof x === 'string' ? x.trim().toLowerCase() : ''));
  if (names.length === 0 || names.includes('all')) return null;
  return names.map(normalizeEntity).filter((x): x is RecordEntity => x !== null);
}

/** Tags are compared trimmed and case-insensitively; `any` or empty matches every tag. */
function tagMatches(wanted: unknown, payload: Record<string, unknown>): boolean {
  const w = str(wanted).toLowerCase();
  if (w === '' || w === 'any') return true;
  const tag = payload.tag;
  const candidates = [str(tag), str(get(tag, '_id')), str(get(tag, 'name')), str(payload.tagId)].filter(Boolean);
  return candidates.some((c) => c.toLowerCase() === w);
}

const words = (s: string): string => (s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');

/** The keyword as a whole word (or phrase) anywhere in the message, case-insensitively. */
function keywordMatches(keyword: unknown, payload: Record<string, unknown>): boolean {
  const k = words(str(keyword));
  if (!k) return true;
  const body = pick(payload, ['sms', 'body'], ['sms', 'message'], ['body'], ['message'], ['text']);
  return ` ${words(body)} `.includes(` ${k} `);
}

export function matchesTrigger(trigger: TriggerRef, event: CrmEvent): boolean {
  const config = isPlainObject(trigger.config) ? trigger.config : {};
  const p = isPlainObject(event.payload) ? event.payload : {};
  switch (trigger.triggerType) {
    case 'scheduled':
    case 'webhook':
      return false; // started by the schedule and the webhook endpoint, never by CRM events
    case 'record_created': {
      const entity = event.type.endsWith('_created') ? entityOf(event, '_created') : null;
      const allowed = entityList(config.entityTypes);
      return entity !== null && (allowed === null || allowed.includes(entity));
    }
    case 'record_changed': {
      const change = changeOf(event);
      if (!change) return false;
      const allowed = entityList(config.entityTypes);
      if (allowed !== null && !allowed.includes(change.entity)) return false;
      const changeTypes: readonly unknown[] =
        Array.isArray(config.changeTypes) && config.changeTypes.length ? config.changeTypes : RECORD_CHANGE_TYPES;
      if (!changeTypes.includes(change.change)) return false;
      return change.change === 'tag_added' || change.change === 'tag_removed' ? tagMatches(config.tagId, p) : true;
    }
    case 'tag_added':
    case 'tag_removed': {
      if (event.type !== trigger.triggerType) return false;
      const entity = normalizeEntity(p.entityType) ?? normalizeEntity(event.entityType);
      const wanted = str(config.entityType) || 'all';
      const entityOk =
        wanted.toLowerCase() === 'all'
          ? entity === 'lead' || entity === 'person' || entity === 'company'
          : (TAG_ENTITY_MAP[wanted as keyof typeof TAG_ENTITY_MAP] ?? normalizeEntity(wanted)) === entity;
      return entityOk && tagMatches(config.tagId, p);
    }
    default:
      break;
  }
  if (event.type !== trigger.triggerType) return false;
  switch (trigger.triggerType) {
    case 'deal_stage_changed':
      return idFilter(config.stageId, pick(p, ['toStageId'], ['deal', 'stageId']));
    case 'booking_created':
    case 'booking_cancelled':
    case 'booking_rescheduled':
    case 'booking_approval_requested':
    case 'booking_approval_reminder':
      return idFilter(
        config.bookingConfigId,
        pick(p, ['booking', 'bookingConfigId'], ['booking', 'configId'], ['bookingConfigId']),
      );
    case 'calculator_submission':
      return idFilter(
        config.calculatorTemplateId,
        pick(p, ['calculator', 'calculatorTemplateId'], ['calculator', 'templateId'], ['calculatorTemplateId']),
      );
    case 'custom_object_created':
    case 'custom_object_updated':
      return idFilter(
        config.customObjectId,
        pick(p, ['custom_record', 'customObjectId'], ['record', 'customObjectId'], ['customObjectId']),
      );
    case 'agent_field_change':
    case 'agent_new_company':
      return idFilter(config.agentId, pick(p, ['agent', '_id'], ['agent', 'id'], ['agentId']));
    case 'sms_received':
    case 'sms_replied':
      return keywordMatches(config.keyword, p);
    default:
      return true;
  }
}

/**
 * Trigger types that may match an event of this type (the event's own type, plus record_created
 * or record_changed when it is a create or a change), for a `triggerType IN (…)` query.
 */
export function candidateTriggerTypes(eventType: string, entityType = ''): string[] {
  const out = [eventType];
  if (eventType.endsWith('_created') && entityOf({ type: eventType, entityType, payload: {} }, '_created'))
    out.push('record_created');
  const change = changeOf({ type: eventType, entityType, payload: { entityType } });
  if (change || eventType === 'tag_added' || eventType === 'tag_removed') out.push('record_changed');
  return [...new Set(out)];
}
