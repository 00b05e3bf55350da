import type { EntityManager } from '@mikro-orm/postgresql';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { eventNames } from '../../platform/outbox/event-names';
import type { Subscriber, SubscriberDeps } from '../../platform/outbox/subscriber';
import { Person } from '../people';
import { Lead } from './lead.entity';
import { activeScoringRules, contactFacts, RULES_CHANGED_EVENT } from './lead-scoring.service';
import { scoreChanged, scoreLead } from './scoring';

export const RESCORE_BATCH_SIZE = 500;

/**
 * Recomputes the score of the workspace's leads matching `where` (all by default), in batches
 * keyed by _id. Only leads whose score or breakdown changed are written, and only if the lead was
 * not modified meanwhile (a concurrent write has scored it itself). No lead_updated event: a
 * rescore is not a user change and would flood automations after every rule edit.
 */
export async function rescoreLeads(
  em: EntityManager,
  where: Record<string, unknown> = {},
  batchSize = RESCORE_BATCH_SIZE,
): Promise<{ scanned: number; updated: number }> {
  const rules = await activeScoringRules(em);
  let scanned = 0;
  let updated = 0;
  let after: string | null = null;
  for (;;) {
    const batch: Lead[] = await em.find(Lead, after ? { $and: [where, { _id: { $gt: after } }] } : where, {
      orderBy: { _id: 'asc' },
      limit: batchSize,
    });
    if (!batch.length) break;
    const personIds = [...new Set(batch.map((l) => l.personRef).filter((id): id is string => Boolean(id)))];
    const people = new Map(
      (personIds.length ? await em.find(Person, { _id: { $in: personIds } }) : []).map((p) => [p._id, p]),
    );
    for (const lead of batch) {
      const result = scoreLead(rules, {
        lead,
        contact: contactFacts(lead.personRef ? people.get(lead.personRef) : null),
      });
      if (!scoreChanged(lead, result)) continue;
      updated += await em.nativeUpdate(
        Lead,
        { _id: lead._id, updatedAt: lead.updatedAt },
        { score: result.score, scoreBreakdown: result.breakdown, updatedAt: new Date() },
      );
    }
    scanned += batch.length;
    after = batch[batch.length - 1]!._id;
    em.clear();
    if (batch.length < batchSize) break;
  }
  return { scanned, updated };
}

// A later, still pending rule change of the same workspace will rescore everything again.
async function supersededLater(em: EntityManager, workspaceId: string, eventRowId: string): Promise<boolean> {
  const rows = await em.execute<{ one: number }[]>(
    `select 1 as one from outbox_event where workspace_id = ? and entity_type = 'workspace' and entity_id = ? and type = ? and id > ? and processed_at is null limit 1`,
    [workspaceId, workspaceId, RULES_CHANGED_EVENT, eventRowId],
  );
  return rows.length > 0;
}

/** Rescores every lead of a workspace after its scoring rules changed. */
export function leadRescoreSubscriber(deps: SubscriberDeps): Subscriber {
  return {
    name: 'lead-rescore',
    handles: (event) => event.type === RULES_CHANGED_EVENT,
    async handle(event) {
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      if (await supersededLater(em, event.workspaceId, event.id)) return;
      const result = await rescoreLeads(em);
      deps.log.info(
        { workspaceId: event.workspaceId, eventId: event.eventId, ...result },
        'leads rescored after a scoring rule change',
      );
    },
  };
}

const CONTACT_EVENTS = eventNames('person_updated', 'person_deleted', 'company_deleted');

/**
 * Keeps leads consistent with their linked records: a person's edit can change `contact.*` rules,
 * and a deleted person or company leaves no dangling reference on leads.
 */
export function leadContactSyncSubscriber(deps: SubscriberDeps): Subscriber {
  return {
    name: 'lead-contact-sync',
    handles: (event) => CONTACT_EVENTS.includes(event.type),
    async handle(event) {
      const em = forkForWorkspace(deps.orm.em, event.workspaceId);
      if (event.type === 'person_updated') {
        await rescoreLeads(em, { personRef: event.entityId });
        return;
      }
      const ref = event.type === 'person_deleted' ? 'personRef' : 'companyRef';
      const affected = await em.find(Lead, { [ref]: event.entityId }, { fields: ['_id'] });
      if (!affected.length) return;
      // One transaction: no reader sees the reference cleared but the old score.
      await em.transactional(async (tem) => {
        await tem.nativeUpdate(Lead, { [ref]: event.entityId }, { [ref]: null, updatedAt: new Date() });
        tem.clear();
        await rescoreLeads(tem, { _id: { $in: affected.map((l) => l._id) } });
      });
    },
  };
}
