/**
 * Enrolling entities: one transaction per call (single or bulk) inserts the enrollment rows, with
 * duplicate handling decided by the database (a partial unique index on running exclusive rows and
 * `on conflict do nothing`, never read-then-write), queued for their workflows (start-queue.ts):
 * the call answers after its commit and the worker's starter starts the workflows right after.
 */
import type { Ctx } from '../../platform/context';
import { Company } from '../companies';
import { Deal } from '../deals';
import { DomainError, notFound, validation } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { Lead } from '../leads';
import { emit } from '../../platform/outbox/emit';
import { Person } from '../people';
import { queuedRuns } from '../../platform/intake/queue-signal';
import { mapLimited } from '../../platform/shared/concurrency';
import { inTransaction } from '../../platform/shared/tx';
import type { EnrollEntityType } from './definition.schemas';
import { normalizeNodeData, type SequenceNodeType } from './nodes.schemas';
import type { SequenceEngineDeps } from './ports';
import { insertEnrollments, requestedBefore } from './enroll-rows';
import { enrollmentEventPayload, type EnrollmentStartRow } from './runs';
import {
  Sequence,
  SequenceEnrollment,
  SequenceOptOut,
  type EnrollmentLinks,
  type EnrollmentSnapshot,
} from './sequence.entity';
import { settingsOf } from './sequences.service';
import { enrollmentWorkflowId } from './workflow-ids';
import { getRecord } from '../../platform/shared/record-service';

export const MAX_BULK_ENROLL = 500;

export interface EnrollOptions {
  source?: string;
  forceRestart?: boolean;
  /** Overrides the sequence's duplicateHandling (the automation action has its own rule). */
  duplicateMode?: 'block' | 'block_with_restart' | 'allow_multiple';
  /** The API request (from its Idempotency-Key, api/http/idempotency.ts): a retry answers the rows it made. */
  requestKey?: string;
}
export interface EnrollResult {
  entityId: string;
  success: boolean;
  action?: 'enrolled' | 'restarted';
  enrollmentId?: string;
  error?: string;
  code?: string;
}

const ENTITY_CLASSES = { Lead, People: Person, Deal, Company } as const;

/** The records an enrollment is about (its own id plus the person/company/lead/deal it links). */
export async function linksOf(
  ctx: Ctx,
  entityType: EnrollEntityType,
  ids: string[],
): Promise<Map<string, EnrollmentLinks>> {
  const out = new Map<string, EnrollmentLinks>();
  const clean = (l: Record<string, string | null | undefined>): EnrollmentLinks =>
    Object.fromEntries(Object.entries(l).filter(([, v]) => typeof v === 'string' && v)) as EnrollmentLinks;
  if (!ids.length) return out;
  switch (entityType) {
    case 'Lead':
      for (const r of await ctx.em.find(Lead, { _id: { $in: ids } }, { fields: ['_id', 'personRef', 'companyRef'] }))
        out.set(r._id, clean({ leadId: r._id, personId: r.personRef, companyId: r.companyRef }));
      break;
    case 'People':
      for (const r of await ctx.em.find(Person, { _id: { $in: ids } }, { fields: ['_id', 'companyId'] }))
        out.set(r._id, clean({ personId: r._id, companyId: r.companyId }));
      break;
    case 'Deal':
      for (const r of await ctx.em.find(
        Deal,
        { _id: { $in: ids } },
        { fields: ['_id', 'personRef', 'company', 'leadRef'] },
      ))
        out.set(r._id, clean({ dealId: r._id, personId: r.personRef, companyId: r.company, leadId: r.leadRef }));
      break;
    case 'Company':
      for (const r of await ctx.em.find(Company, { _id: { $in: ids } }, { fields: ['_id'] }))
        out.set(r._id, { companyId: r._id });
      break;
  }
  return out;
}

export function snapshotOf(s: Sequence): EnrollmentSnapshot {
  return {
    version: s.version,
    nodes: s.nodes.map((n) => ({
      id: n.id,
      type: n.type,
      data: normalizeNodeData(n.type as SequenceNodeType, n.data),
    })),
    edges: s.edges.map((e) => ({ source: e.source, target: e.target, sourceHandle: e.sourceHandle ?? null })),
    settings: settingsOf(s),
  };
}

async function optedOut(ctx: Ctx, entityType: string, links: Map<string, EnrollmentLinks>): Promise<Set<string>> {
  const personIds = [...links.values()].map((l) => l.personId).filter((v): v is string => !!v);
  const rows = await ctx.em.find(
    SequenceOptOut,
    {
      $or: [
        { entityType, entityId: { $in: [...links.keys()] } },
        { entityType: 'People', entityId: { $in: personIds.length ? personIds : ['-'] } },
      ],
    },
    { fields: ['entityType', 'entityId'] },
  );
  const out = new Set(rows.map((r) => `${r.entityType}:${r.entityId}`));
  return new Set(
    [...links.entries()]
      .filter(([id, l]) => out.has(`${entityType}:${id}`) || (l.personId && out.has(`People:${l.personId}`)))
      .map(([id]) => id),
  );
}

interface Prepared {
  sequence: Sequence;
  results: Map<string, EnrollResult>;
  started: EnrollmentStartRow[];
  restartedWorkflows: string[];
  /** Lost the race for the unique running row to a concurrent call (block_with_restart retries them). */
  conflicted: string[];
  mode: string;
}

/**
 * Enrolls each entity independently; the result per entity says enrolled, restarted, or why not.
 * Throws only for problems of the whole call (unknown or inactive sequence, disallowed type).
 */
export async function enrollEntities(
  ctx: Ctx,
  deps: SequenceEngineDeps,
  sequenceId: string,
  entityType: EnrollEntityType,
  entityIds: string[],
  opts: EnrollOptions = {},
): Promise<EnrollResult[]> {
  const unique = [...new Set(entityIds)];
  if (unique.length > MAX_BULK_ENROLL) throw validation(`entityIds: at most ${MAX_BULK_ENROLL} per call`);
  const once = (batch: string[]) =>
    inTransaction(ctx, async (): Promise<Prepared> => {
      let todo = batch;
      // FOR SHARE: a concurrent delete or toggle waits for this call (and vice versa).
      const rows: { id: string }[] = await ctx.em.execute(
        'select id from sequence where id = ? and workspace_id = ? for share',
        [sequenceId, ctx.actor.workspaceId],
      );
      if (!rows.length) throw notFound('sequence');
      const sequence = await ctx.em.findOneOrFail(Sequence, { _id: sequenceId }, { refresh: true });
      if (!sequence.isActive)
        throw new DomainError(
          'invalid_state',
          'sequence is not active; activate it first (POST /api/v1/sequences/:id/toggle)',
        );
      const settings = settingsOf(sequence);
      if (!settings.allowedEntityTypes.includes(entityType))
        throw validation(`entityType: this sequence accepts ${settings.allowedEntityTypes.join(', ')}`);
      const results = new Map<string, EnrollResult>();
      // A retry of a request whose answer was lost (its key released or taken over) gets the rows it made.
      for (const r of opts.requestKey ? await requestedBefore(ctx, sequenceId, opts.requestKey, todo) : [])
        results.set(r.entityId, { entityId: r.entityId, success: true, action: r.action, enrollmentId: r.id });
      if (results.size) todo = todo.filter((id) => !results.has(id));
      const links = await linksOf(ctx, entityType, todo);
      const blocked = await optedOut(ctx, entityType, links);
      const candidates: string[] = [];
      for (const id of todo) {
        if (!links.has(id))
          results.set(id, {
            entityId: id,
            success: false,
            code: 'entity_not_found',
            error: `no ${entityType} with this id in the workspace`,
          });
        else if (blocked.has(id))
          results.set(id, {
            entityId: id,
            success: false,
            code: 'unsubscribed',
            error: 'the contact unsubscribed from sequences',
          });
        else candidates.push(id);
      }
      const mode = opts.duplicateMode ?? (opts.forceRestart ? 'block_with_restart' : settings.duplicateHandling);
      const now = new Date();
      const restartedWorkflows: string[] = [];
      const restarted = new Set<string>();
      if (mode === 'block_with_restart' && candidates.length) {
        const old: {
          id: string;
          entity_id: string;
          workflow_id: string;
          sequence_id: string;
          entity_type: string;
          status: string;
          was_queued: boolean;
        }[] = await ctx.em.execute(
          `update sequence_enrollment o set status = 'exited', exit_reason = 'restarted', finished_at = ?, updated_at = now(), next_action_at = null,
             start_queued = false, start_lease_until = null
         where workspace_id = ? and sequence_id = ? and entity_type = ? and entity_id in (${candidates.map(() => '?').join(',')}) and status in ('active', 'paused')
         returning id, entity_id, workflow_id, sequence_id, entity_type, status,
           (select q.start_queued from sequence_enrollment q where q.id = o.id) as was_queued`,
          [now, ctx.actor.workspaceId, sequenceId, entityType, ...candidates],
        );
        for (const o of old) {
          restarted.add(o.entity_id);
          // A queued row's workflow has not started (the starter's markStarted tells it if it is starting).
          if (!o.was_queued) restartedWorkflows.push(o.workflow_id);
          emit(ctx, {
            type: 'sequence_exited',
            entityType: 'sequence_enrollment',
            entityId: o.id,
            payload: {
              enrollment: {
                _id: o.id,
                sequenceId,
                entityType,
                entityId: o.entity_id,
                status: 'exited',
                exitReason: 'restarted',
              },
            },
          });
        }
      }
      const snapshot = snapshotOf(sequence);
      const exclusive = mode !== 'allow_multiple';
      const inserted = await insertEnrollments(
        ctx,
        candidates.map((entityId) => {
          const id = newId(now);
          return {
            id,
            entityId,
            links: links.get(entityId)!,
            exclusive,
            workflowId: enrollmentWorkflowId(ctx.actor.workspaceId, id),
          };
        }),
        { sequence, entityType, source: opts.source ?? 'api', snapshot, now, requestKey: opts.requestKey },
      );
      const byEntity = new Map(inserted.map((r) => [r.entityId, r]));
      const conflicted: string[] = [];
      for (const id of candidates) {
        const row = byEntity.get(id);
        if (!row) {
          conflicted.push(id);
          results.set(id, {
            entityId: id,
            success: false,
            code: 'already_enrolled',
            error: 'the entity is already enrolled in this sequence (duplicateHandling block)',
          });
          continue;
        }
        results.set(id, {
          entityId: id,
          success: true,
          action: restarted.has(id) ? 'restarted' : 'enrolled',
          enrollmentId: row._id,
        });
        emit(ctx, {
          type: 'sequence_enrolled',
          entityType: 'sequence_enrollment',
          entityId: row._id,
          payload: enrollmentEventPayload(row),
        });
      }
      return { sequence, results, started: inserted, restartedWorkflows, conflicted, mode };
    });
  const prepared = await once(unique);
  // block_with_restart: a concurrent call committed its row first; restarting that one is the answer.
  for (let round = 0; prepared.mode === 'block_with_restart' && prepared.conflicted.length && round < 5; round++) {
    const again = await once(prepared.conflicted);
    for (const [id, r] of again.results) prepared.results.set(id, r);
    prepared.started.push(...again.started);
    prepared.restartedWorkflows.push(...again.restartedWorkflows);
    prepared.conflicted = again.conflicted;
  }
  // After commit: the starter in this process (tests, one-process deployments) wakes at once; the worker's by NOTIFY.
  if (prepared.started.length) queuedRuns.emit('queued', ctx.actor.workspaceId);
  await mapLimited(prepared.restartedWorkflows, 16, (wf) => deps.workflows.exit(wf, 'restarted').catch(() => false));
  return unique.map((id) => prepared.results.get(id)!);
}

export type Eligibility = { eligible: true; reason?: string } | { eligible: false; reason: string };

/** Would enrolling this entity succeed now (and what would it do)? Nothing is written. */
export async function enrollEligibility(
  ctx: Ctx,
  sequenceId: string,
  entityType: EnrollEntityType,
  entityId: string,
): Promise<Eligibility> {
  const sequence = await getRecord(ctx, Sequence, sequenceId, 'sequence');
  if (!sequence.isActive) return { eligible: false, reason: 'sequence_inactive' };
  const settings = settingsOf(sequence);
  if (!settings.allowedEntityTypes.includes(entityType)) return { eligible: false, reason: 'entity_type_not_allowed' };
  const links = await linksOf(ctx, entityType, [entityId]);
  if (!links.has(entityId)) return { eligible: false, reason: 'entity_not_found' };
  if ((await optedOut(ctx, entityType, links)).size) return { eligible: false, reason: 'unsubscribed' };
  const running = await ctx.em.count(SequenceEnrollment, {
    sequenceId,
    entityType,
    entityId,
    status: { $in: ['active', 'paused'] },
  });
  if (!running) return { eligible: true };
  if (settings.duplicateHandling === 'block') return { eligible: false, reason: 'already_enrolled' };
  return {
    eligible: true,
    reason:
      settings.duplicateHandling === 'allow_multiple'
        ? 'already_enrolled_parallel_allowed'
        : 'already_enrolled_will_restart',
  };
}

export { ENTITY_CLASSES };
