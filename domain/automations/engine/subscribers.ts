/**
 * Outbox subscribers of the automation engine. `automations`: every CRM event starts each active
 * automation of its workspace whose trigger matches, exactly once (triggerKey = event id).
 * `automation-schedules`: keeps Temporal Schedules in step with scheduled automations.
 */
import { forkForWorkspace } from '../../orm/tenant';
import type { OutboxEventRecord, Subscriber } from '../../outbox/subscriber';
import { Automation } from '../automation.entity';
import type { TriggerType } from '../definition.schemas';
import { candidateTriggerTypes, matchesTrigger, normalizeEntity, TRIGGER_NAMESPACES } from '../triggers';
import { loadTriggerContext } from './context';
import { chainOf, MAX_CHAIN } from './origin';
import type { EngineDeps } from './ports';
import { syncSchedule } from './schedules';
import { startExecution } from './start';

/** Events about automations themselves never trigger automations. */
const isEngineEvent = (e: OutboxEventRecord): boolean => e.entityType === 'automation' || e.type.startsWith('automation_');

/** The record an event is about: tag events name it in their payload. */
function subjectOf(event: OutboxEventRecord): { entityType: string; entityId: string } {
  const p = event.payload;
  if ((event.type === 'tag_added' || event.type === 'tag_removed') && typeof p.entityType === 'string' && typeof p.entityId === 'string') {
    return { entityType: normalizeEntity(p.entityType) ?? p.entityType, entityId: p.entityId };
  }
  return { entityType: normalizeEntity(event.entityType) ?? event.entityType, entityId: event.entityId };
}

export function automationTriggerSubscriber(deps: EngineDeps): Subscriber {
  return {
    name: 'automations',
    handles: (e) => !isEngineEvent(e),
    async handle(event) {
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      const types = candidateTriggerTypes(event.type, event.entityType);
      const candidates = await em.find(Automation, { isActive: true, triggerType: { $in: types } }, { fields: ['_id', 'nodes', 'triggerType'] });
      if (!candidates.length) return;
      // Loop guard: an automation never reacts to events its own run (or a run it caused) wrote.
      const chain = chainOf(event.payload);
      if (chain.length >= MAX_CHAIN) {
        deps.log.warn({ eventId: event.eventId, chain }, 'automation chain too deep: event starts no automation');
        return;
      }
      const crmEvent = { type: event.type, entityType: event.entityType, entityId: event.entityId, payload: event.payload };
      const subject = subjectOf(event);
      for (const a of candidates) {
        const trigger = a.nodes.find((n) => n.type === 'trigger');
        if (!trigger || chain.includes(a._id)) continue;
        const triggerType = String(trigger.data.triggerType ?? a.triggerType);
        if (!matchesTrigger({ triggerType, config: trigger.data.config as Record<string, unknown> | undefined }, crmEvent)) continue;
        const context = await loadTriggerContext(em, event, TRIGGER_NAMESPACES[triggerType as TriggerType] ?? []);
        await startExecution(deps, {
          workspaceId: event.workspaceId, automationId: a._id, triggerType, triggerKey: event.eventId,
          entityType: subject.entityType, entityId: subject.entityId, context, chain, retryable: true,
        });
      }
    },
  };
}

export function automationScheduleSubscriber(deps: EngineDeps): Subscriber {
  return {
    name: 'automation-schedules',
    handles: (e) => e.entityType === 'automation' && (e.type === 'automation_changed' || e.type === 'automation_deleted'),
    async handle(event) {
      await syncSchedule(deps, event.workspaceId, event.entityId);
    },
  };
}

/** Both subscribers, for buildSubscribers. */
export const automationSubscribers = (deps: EngineDeps): Subscriber[] => [automationTriggerSubscriber(deps), automationScheduleSubscriber(deps)];
