/**
 * Outbox subscribers of the automation engine. `automations`: every CRM event starts each active
 * automation of its workspace whose trigger matches, exactly once (triggerKey = event id).
 * `automation-schedules`: keeps Temporal Schedules in step with scheduled automations.
 */
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { mapLimited } from '../../../platform/shared/concurrency';
import type { OutboxEventRecord, Subscriber } from '../../../platform/outbox/subscriber';
import { Automation } from '../automation.entity';
import type { TriggerType } from '../definition.schemas';
import { candidateTriggerTypes, matchesTrigger, normalizeEntity, TRIGGER_NAMESPACES } from '../triggers';
import { explainTriggerMismatch } from '../trigger-explain';
import { Workspace } from '../../workspaces';
import { loadTriggerContext } from './context';
import { chainOf, MAX_CHAIN } from './origin';
import type { EngineDeps } from './ports';
import { syncSchedule } from './schedules';
import { recordSkip, type SkipRecord } from './skips';
import { startExecutions, type StartRequest } from './start';
import { startRoom } from './in-flight';
import type { Context } from './types.pure';

/** Events about automations themselves never trigger automations. */
const isEngineEvent = (e: OutboxEventRecord): boolean =>
  e.entityType === 'automation' || e.type.startsWith('automation_');

/** The record an event is about: tag events name it in their payload. */
function subjectOf(event: OutboxEventRecord): { entityType: string; entityId: string } {
  const p = event.payload;
  if (
    (event.type === 'tag_added' || event.type === 'tag_removed') &&
    typeof p.entityType === 'string' &&
    typeof p.entityId === 'string'
  ) {
    return { entityType: normalizeEntity(p.entityType) ?? p.entityType, entityId: p.entityId };
  }
  return { entityType: normalizeEntity(event.entityType) ?? event.entityType, entityId: event.entityId };
}

/** Context loads of one batch in flight at once (each a few primary-key reads). */
const CONTEXT_CONCURRENCY = 8;

interface PlannedStart {
  event: OutboxEventRecord;
  automationId: string;
  triggerType: string;
  chain: string[];
}

/**
 * Starts for the events of one workspace: one query for the active automations any of them can
 * trigger, the matching (event, automation) pairs, each event's context loaded once per set of
 * namespaces, then every start through startExecutions (one transaction per automation).
 */
async function startForWorkspace(
  deps: EngineDeps,
  workspaceId: string,
  events: readonly OutboxEventRecord[],
  failures: Map<string, unknown>,
): Promise<void> {
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const types = [...new Set(events.flatMap((e) => candidateTriggerTypes(e.type, e.entityType)))];
  if (!types.length) return;
  const candidates = await em.find(
    Automation,
    { isActive: true, triggerType: { $in: types } },
    { fields: ['_id', 'nodes', 'triggerType'] },
  );
  if (!candidates.length) return;
  const workspace = await em.findOne(Workspace, { _id: workspaceId }, { fields: ['status'] });
  const suspended = workspace?.status === 'suspended';

  const planned: PlannedStart[] = [];
  const skips: SkipRecord[] = [];
  for (const event of events) {
    const chain = chainOf(event.payload);
    const tooDeep = chain.length >= MAX_CHAIN;
    if (tooDeep)
      deps.log.warn({ eventId: event.eventId, chain }, 'automation chain too deep: event starts no automation');
    const crmEvent = {
      type: event.type,
      entityType: event.entityType,
      entityId: event.entityId,
      payload: event.payload,
    };
    const subject = subjectOf(event);
    const skip = (automationId: string, triggerType: string, s: Pick<SkipRecord, 'reason' | 'message' | 'details'>) =>
      skips.push({ workspaceId, automationId, triggerType, triggerKey: event.eventId, ...subject, ...s });
    // A non-match is a skip only where the trigger type can take this event (the batch's query is wider).
    const relevant = new Set(candidateTriggerTypes(event.type, event.entityType));
    for (const a of candidates) {
      const trigger = a.nodes.find((n) => n.type === 'trigger');
      if (!trigger) continue;
      const triggerType = String(trigger.data.triggerType ?? a.triggerType);
      const ref = { triggerType, config: trigger.data.config as Record<string, unknown> | undefined };
      if (!matchesTrigger(ref, crmEvent)) {
        if (relevant.has(triggerType)) skip(a._id, triggerType, explainTriggerMismatch(ref, crmEvent));
      } else if (tooDeep || chain.includes(a._id)) {
        // Loop guard: an automation never reacts to events its own run (or a run it caused) wrote.
        skip(a._id, triggerType, {
          reason: 'loop_guard',
          message: tooDeep
            ? `the event was written by a chain of ${chain.length} automation runs (at most ${MAX_CHAIN - 1})`
            : 'the event was written by a run of this automation (or a run it caused)',
          details: { eventType: event.type, chain },
        });
      } else if (suspended) {
        skip(a._id, triggerType, {
          reason: 'workspace_suspended',
          message: 'the workspace is suspended: its automations start no runs',
          details: { eventType: event.type, workspaceStatus: 'suspended' },
        });
      } else planned.push({ event, automationId: a._id, triggerType, chain });
    }
  }
  // Batched with the skips of other batches; a failure to record is logged, it never holds back starts.
  if (skips.length)
    await Promise.all(skips.map((s) => recordSkip(deps.orm, s))).catch((err: unknown) =>
      deps.log.warn({ err, workspaceId }, 'automation skips not recorded'),
    );
  if (!planned.length) return;

  // One context per event and namespace set (several automations on one event share it).
  const contexts = new Map<string, Promise<Context>>();
  const contextFor = (p: PlannedStart): Promise<Context> => {
    const namespaces = TRIGGER_NAMESPACES[p.triggerType as TriggerType] ?? [];
    const key = `${p.event.id}|${namespaces.join(',')}`;
    if (!contexts.has(key)) contexts.set(key, loadTriggerContext(em.fork(), p.event, namespaces));
    return contexts.get(key)!;
  };
  const reqs: (StartRequest | null)[] = await mapLimited(planned, CONTEXT_CONCURRENCY, async (p) => {
    try {
      const subject = subjectOf(p.event);
      return {
        workspaceId,
        automationId: p.automationId,
        triggerType: p.triggerType,
        triggerKey: p.event.eventId,
        entityType: subject.entityType,
        entityId: subject.entityId,
        context: await contextFor(p),
        chain: p.chain,
        retryable: true,
      };
    } catch (err) {
      failures.set(p.event.id, err);
      return null;
    }
  });
  const ready = planned
    .map((p, i) => ({ p, req: reqs[i] }))
    .filter((x): x is { p: PlannedStart; req: StartRequest } => x.req !== null && !failures.has(x.p.event.id));
  if (!ready.length) return;
  const room = await startRoom(em, workspaceId, deps.inFlight);
  const outcomes = await startExecutions(
    deps,
    workspaceId,
    ready.map((x) => x.req),
    { room },
  );
  outcomes.forEach((o, i) => {
    if (o.status === 'error' && !failures.has(ready[i]!.p.event.id)) failures.set(ready[i]!.p.event.id, o.error);
  });
}

export function automationTriggerSubscriber(deps: EngineDeps): Subscriber {
  return {
    name: 'automations',
    handles: (e) => !isEngineEvent(e),
    async handleBatch(events) {
      const failures = new Map<string, unknown>();
      const byWorkspace = new Map<string, OutboxEventRecord[]>();
      for (const e of events) {
        const list = byWorkspace.get(e.workspaceId) ?? [];
        list.push(e);
        byWorkspace.set(e.workspaceId, list);
      }
      // Workspaces side by side (a claim serves at most CLAIM_WORKSPACES of them), so one workspace's part of the
      // batch never waits for another's: a burst of one does not delay the next event of the others.
      await Promise.all(
        [...byWorkspace].map(async ([workspaceId, list]) => {
          try {
            await startForWorkspace(deps, workspaceId, list, failures);
          } catch (err) {
            for (const e of list) if (!failures.has(e.id)) failures.set(e.id, err);
          }
        }),
      );
      return failures;
    },
  };
}

export function automationScheduleSubscriber(deps: EngineDeps): Subscriber {
  return {
    name: 'automation-schedules',
    // automation_changed covers deletion too (action 'deleted'); no `automation_deleted` event exists.
    handles: (e) => e.entityType === 'automation' && e.type === 'automation_changed',
    async handle(event) {
      await syncSchedule(deps, event.workspaceId, event.entityId);
    },
  };
}

/** Both subscribers, for buildSubscribers. */
export const automationSubscribers = (deps: EngineDeps): Subscriber[] => [
  automationTriggerSubscriber(deps),
  automationScheduleSubscriber(deps),
];
