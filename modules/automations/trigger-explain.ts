/**
 * Why a CRM event did not match an automation's trigger (matchesTrigger false), for the skip log
 * (issue 27): `entity_type_mismatch` when the trigger's entity filter excludes the event's record,
 * else `conditions_false` (event type, change type, tag, stage, keyword or id filters). Pure.
 */
import {
  changeOf,
  entityList,
  entityOf,
  normalizeEntity,
  TAG_ENTITY_MAP,
  type CrmEvent,
  type TriggerRef,
} from './triggers';
import { isPlainObject } from '../../platform/shared/zod-kit';

export interface TriggerMismatch {
  reason: 'entity_type_mismatch' | 'conditions_false';
  message: string;
  details: Record<string, unknown>;
}

/** The trigger's filter settings (scalars and short lists; skips never copy secrets, see boundDetails). */
function filters(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    else if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) out[k] = v;
  }
  return out;
}

export function explainTriggerMismatch(trigger: TriggerRef, event: CrmEvent): TriggerMismatch {
  const config = isPlainObject(trigger.config) ? trigger.config : {};
  const base = { eventType: event.type, eventEntityType: event.entityType, triggerType: trigger.triggerType };
  const entityMismatch = (entity: string | null, allowed: unknown): TriggerMismatch => ({
    reason: 'entity_type_mismatch',
    message: `the trigger accepts ${Array.isArray(allowed) ? allowed.join(', ') : String(allowed)}, not ${entity ?? event.entityType}`,
    details: { ...base, entity, allowed },
  });
  const notMet = (message: string, extra: Record<string, unknown> = {}): TriggerMismatch => ({
    reason: 'conditions_false',
    message,
    details: { ...base, filters: filters(config), ...extra },
  });
  const payload = isPlainObject(event.payload) ? event.payload : {};
  switch (trigger.triggerType) {
    case 'record_created': {
      const entity = event.type.endsWith('_created') ? entityOf(event, '_created') : null;
      const allowed = entityList(config.entityTypes);
      if (entity && allowed && !allowed.includes(entity)) return entityMismatch(entity, allowed);
      return notMet(`${event.type} is not a record creation`);
    }
    case 'record_changed': {
      const change = changeOf(event);
      if (!change) return notMet(`${event.type} changed nothing the trigger watches`);
      const allowed = entityList(config.entityTypes);
      if (allowed && !allowed.includes(change.entity)) return entityMismatch(change.entity, allowed);
      return notMet(`the ${change.change} change does not meet the trigger's change types or tag`, {
        change: change.change,
        tag: payload.tag ?? payload.tagId ?? null,
      });
    }
    case 'tag_added':
    case 'tag_removed': {
      if (event.type !== trigger.triggerType) return notMet(`${event.type} is not ${trigger.triggerType}`);
      const entity = normalizeEntity(payload.entityType) ?? normalizeEntity(event.entityType);
      const wanted =
        typeof config.entityType === 'string' && config.entityType.trim() ? config.entityType.trim() : 'all';
      const ok =
        wanted.toLowerCase() === 'all'
          ? entity === 'lead' || entity === 'person' || entity === 'company'
          : (TAG_ENTITY_MAP[wanted as keyof typeof TAG_ENTITY_MAP] ?? normalizeEntity(wanted)) === entity;
      if (!ok) return entityMismatch(entity, wanted.toLowerCase() === 'all' ? ['lead', 'person', 'company'] : [wanted]);
      return notMet('the tag does not match the trigger tag', { tag: payload.tag ?? payload.tagId ?? null });
    }
    default:
      return notMet(`the ${event.type} event does not meet the ${trigger.triggerType} trigger's filters`);
  }
}
