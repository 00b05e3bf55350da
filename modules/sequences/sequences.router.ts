import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { ENGINE_UNCONFIRMED_NOTE, engineCommandId, requestKeyOf } from '../../platform/http/idempotency';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { enrollEligibility, enrollEntities } from './enroll.service';
import { readEnrollmentWithWait } from './enrollment-wait';
import type { SequenceEngineDeps } from './ports';
import { enrollmentAdmission } from './start-queue';
import { retryEnrollment } from './retry';
import { listEnrollments, pauseEnrollment, resumeEnrollment, sequenceStats, unenrollEnrollment } from './runs';
import * as sequences from './sequences.service';
import { unsubscribe, unsubscribeKey, UNSUBSCRIBE_PATH } from './unsubscribe';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { ok, pageOf, route } from '../../platform/http/registry';
import {
  eligibilityView,
  enrolledManyView,
  enrolledOneView,
  enrollmentDetailView,
  enrollmentView,
  pausedView,
  resumedView,
  sequenceDeletedView,
  sequenceStatsView,
  sequenceToggleView,
  sequenceView,
  unenrolledView,
  unsubscribedView,
  retriedEnrollmentView,
} from './sequences.views';
import { idParams } from '../../platform/shared/schemas';
import {
  eligibilityQuery,
  enrollBody,
  enrollmentParams,
  enrollTarget,
  listEnrollmentsQuery,
  listSequencesQuery,
  pauseBody,
  sequenceCreateBody,
  sequenceUpdateBody,
  tokenParams,
} from './sequences.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Sequences';
const resources = { id: 'sequence' };
const enrollment = { enrollmentId: 'sequence-enrollment' };
const UNSUBSCRIBE_REASON = 'the token in the e-mail link (HMAC-signed enrollment id) is the capability';

const ERROR_OF: Record<string, DomainError['code']> = {
  entity_not_found: 'not_found',
  already_enrolled: 'conflict',
  unsubscribed: 'conflict',
};

/** Static paths (/enrollments/…) come before /:id. */
export const sequencesRoutes: RouteFactory = (deps) => {
  const engine: SequenceEngineDeps = {
    orm: deps.orm,
    log: deps.log.child({ component: 'sequences' }),
    waitScale: deps.config.sequenceWaitScale,
    stepTimeoutMs: deps.config.sequenceStepTimeoutMs,
    // Pause, resume, unenroll answer a user: a Temporal outage answers within the engine deadline.
    workflows: deps.sequenceWorkflows,
  };
  /** POST /sequences/enrollments/:enrollmentId/<action>: one engine command, idempotent by its command id. */
  const enrollmentCommand = (
    action: 'resume' | 'unenroll',
    summary: string,
    view: z.ZodType,
    run: (ctx: Ctx, deps: SequenceEngineDeps, id: string, commandId: string) => Promise<unknown>,
  ) =>
    route({
      method: 'POST',
      path: `/api/v1/sequences/enrollments/:enrollmentId/${action}`,
      section,
      access: write,
      params: enrollmentParams,
      resources: enrollment,
      summary: `${summary} ${ENGINE_UNCONFIRMED_NOTE}`,
      response: envelopes.data(view),
      handler: async ({ ctx, params, koa }) =>
        ok(await run(ctx, engine, params.enrollmentId, engineCommandId(koa, ctx.actor.workspaceId))),
    });
  return [
    route({
      method: 'GET',
      path: '/api/v1/sequences/enrollments/:enrollmentId',
      section,
      access: read,
      params: enrollmentParams,
      resources: enrollment,
      summary:
        'One enrollment with its status, current step, next action time and wait reason, step history, and for a running enrollment what it waits for and until when (`wait`, asked from its workflow with a short deadline; `source: stored` when no worker answered in time).',
      response: envelopes.data(enrollmentDetailView),
      handler: async ({ ctx, params }) =>
        ok(await readEnrollmentWithWait(ctx, deps.sequenceWorkflows, params.enrollmentId)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/sequences/enrollments/:enrollmentId/pause',
      section,
      access: write,
      params: enrollmentParams,
      body: pauseBody,
      resources: enrollment,
      summary: `Pause an active enrollment; with durationDays it resumes by itself after that many days (0 < d ≤ 365). 409 invalid_state unless active. ${ENGINE_UNCONFIRMED_NOTE}`,
      response: envelopes.data(pausedView),
      handler: async ({ ctx, params, body, koa }) =>
        ok(
          await pauseEnrollment(
            ctx,
            engine,
            params.enrollmentId,
            body.durationDays,
            engineCommandId(koa, ctx.actor.workspaceId),
          ),
        ),
    }),
    enrollmentCommand(
      'resume',
      'Resume a paused enrollment. 409 invalid_state unless paused.',
      resumedView,
      resumeEnrollment,
    ),
    enrollmentCommand(
      'unenroll',
      'End an active or paused enrollment: status exited with exitReason manual. 409 invalid_state otherwise.',
      unenrolledView,
      unenrollEnrollment,
    ),
    route({
      method: 'POST',
      path: '/api/v1/sequences/enrollments/:enrollmentId/retry',
      section,
      access: write,
      params: enrollmentParams,
      resources: enrollment,
      successStatus: 202,
      summary:
        'Retry an enrollment that failed (exited with exitReason error) from its failed step: a new enrollment of the same entity (retryOf names the failed one, which keeps its status and steps and lists it in retries) begins at the failed node with the snapshot the failed one had, so the steps before it are not run again. 409 invalid_state unless the enrollment failed; 409 conflict while the entity has another active or paused enrollment of the sequence (exclusive modes) or a retry of it still runs. Answers 202 { data: { enrollmentId, workflowId, status: active, retryOf, resumeAt, existing } }: its workflow starts moments later. Idempotent with Idempotency-Key; 429 with Retry-After while too many enrollments of the workspace wait to start.',
      response: envelopes.data(retriedEnrollmentView),
      errors: [429],
      handler: async ({ ctx, params, koa }) => {
        const ws = ctx.actor.workspaceId;
        await enrollmentAdmission.admit(deps.orm, ws, deps.config.intakeMaxQueuedPerWorkspace, 1);
        let queued = false;
        try {
          const data = await retryEnrollment(ctx, params.enrollmentId, requestKeyOf(koa, ws));
          queued = !data.existing;
          return { status: 202, body: { data } };
        } finally {
          if (!queued) enrollmentAdmission.release(ws, 1);
        }
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/sequences',
      section,
      access: read,
      query: listSequencesQuery,
      summary:
        'List sequences (newest first), optionally only active or inactive ones; each with enrollment counts (stats).',
      response: envelopes.list(sequenceView),
      handler: async ({ ctx, query }) => pageOf(await sequences.listSequences(ctx, query), query),
    }),
    route({
      method: 'POST',
      path: '/api/v1/sequences',
      section,
      access: write,
      body: sequenceCreateBody,
      successStatus: 201,
      summary: 'Create a sequence (inactive). Without nodes it gets one start node; settings take the spec defaults.',
      response: envelopes.data(sequenceView),
      handler: async ({ ctx, body }) => ({ status: 201, body: { data: await sequences.createSequence(ctx, body) } }),
    }),
    route({
      method: 'GET',
      path: '/api/v1/sequences/:id',
      section,
      access: read,
      params: idParams,
      resources,
      summary: 'One sequence with its graph, settings (defaults filled in), version and enrollment counts.',
      response: envelopes.data(sequenceView),
      handler: async ({ ctx, params }) => ok(await sequences.readSequence(ctx, params.id)),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/sequences/:id',
      section,
      access: write,
      params: idParams,
      body: sequenceUpdateBody,
      resources,
      summary:
        'Update a sequence (partial; settings objects merge key by key). Running enrollments keep the snapshot they started with.',
      response: envelopes.data(sequenceView),
      handler: async ({ ctx, params, body }) => ok(await sequences.updateSequence(ctx, params.id, body)),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/sequences/:id',
      section,
      access: write,
      params: idParams,
      resources,
      summary: 'Delete a sequence with its finished enrollments; 409 while enrollments are active or paused.',
      response: envelopes.data(sequenceDeletedView),
      handler: async ({ ctx, params }) => {
        await sequences.deleteSequence(ctx, params.id);
        return ok({ deleted: true });
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/sequences/:id/toggle',
      section,
      access: write,
      params: idParams,
      resources,
      summary:
        'Activate or deactivate; activating needs a valid graph with a start node and at least one action node (400 with details).',
      response: envelopes.data(sequenceToggleView),
      handler: async ({ ctx, params }) => ok(await sequences.toggleSequence(ctx, params.id)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/sequences/:id/duplicate',
      section,
      access: write,
      params: idParams,
      resources,
      successStatus: 201,
      summary: 'An inactive copy named "<name> (copy)" with the same graph and settings.',
      response: envelopes.data(sequenceView),
      handler: async ({ ctx, params }) => ({
        status: 201,
        body: { data: await sequences.duplicateSequence(ctx, params.id) },
      }),
    }),
    route({
      method: 'GET',
      path: '/api/v1/sequences/:id/enroll-eligibility',
      section,
      access: read,
      params: idParams,
      query: eligibilityQuery,
      resources,
      summary:
        'Whether the entity could be enrolled now: { eligible, reason? } (sequence_inactive, entity_type_not_allowed, entity_not_found, unsubscribed, already_enrolled; already_enrolled_will_restart / already_enrolled_parallel_allowed when eligible).',
      response: envelopes.data(eligibilityView),
      handler: async ({ ctx, params, query }) => {
        await sequences.getSequence(ctx, params.id);
        const missing = (['entityType', 'entityId'] as const)
          .filter((k) => !query[k])
          .map((k) => ({ path: k, error: 'is required' }));
        if (missing.length)
          throw new DomainError('validation', `query: ${missing.map((m) => m.path).join(', ')}: is required`, missing);
        return ok(await enrollEligibility(ctx, params.id, query.entityType!, query.entityId!));
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/sequences/:id/enroll',
      section,
      access: write,
      params: idParams,
      body: enrollBody,
      resources,
      successStatus: 201,
      summary:
        'Enroll one entity (entityId: 201 { ok, action, enrollmentId }; 404 unknown entity, 409 already enrolled or unsubscribed) or up to 500 (entityIds: 201 { enrolled, failed, results }). The sequence must be active (409). Answers once the enrollments are committed (status active); their workflows start right after. 429 with Retry-After while INTAKE_MAX_QUEUED_PER_WORKSPACE enrollments of the workspace wait to start.',
      response: envelopes.data(z.union([enrolledOneView, enrolledManyView])),
      errors: [429],
      handler: async ({ ctx, params, body, koa }) => {
        await sequences.getSequence(ctx, params.id);
        const target = enrollTarget(body);
        const ws = ctx.actor.workspaceId;
        await enrollmentAdmission.admit(
          deps.orm,
          ws,
          deps.config.intakeMaxQueuedPerWorkspace,
          new Set(target.ids).size,
        );
        const results = await enrollEntities(ctx, engine, params.id, target.entityType, target.ids, {
          source: body.source,
          forceRestart: body.forceRestart,
          requestKey: requestKeyOf(koa, ws),
        });
        if (target.bulk) {
          const enrolled = results.filter((r) => r.success).length;
          return {
            status: 201,
            body: {
              data: {
                enrolled,
                failed: results.length - enrolled,
                results: results.map((r) => ({
                  entityId: r.entityId,
                  success: r.success,
                  ...(r.enrollmentId ? { enrollmentId: r.enrollmentId, action: r.action } : {}),
                  ...(r.error ? { error: r.error, code: r.code } : {}),
                })),
              },
            },
          };
        }
        const r = results[0]!;
        if (!r.success)
          throw new DomainError(ERROR_OF[r.code ?? ''] ?? 'conflict', r.error ?? 'not enrolled', { code: r.code });
        return { status: 201, body: { data: { ok: true, action: r.action, enrollmentId: r.enrollmentId } } };
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/sequences/:id/enrollments',
      section,
      access: read,
      params: idParams,
      query: listEnrollmentsQuery,
      resources,
      summary: 'Enrollments of a sequence, newest first, optionally by status.',
      response: envelopes.list(enrollmentView),
      handler: async ({ ctx, params, query }) => pageOf(await listEnrollments(ctx, params.id, query), query),
    }),
    route({
      method: 'GET',
      path: '/api/v1/sequences/:id/stats',
      section,
      access: read,
      params: idParams,
      resources,
      summary:
        'Enrollment totals by status and exit reason, per-step sent/opened/clicked/replied and outcomes, and enrollmentCounts [{ _id: status, count }].',
      response: envelopes.data(sequenceStatsView),
      handler: async ({ ctx, params }) => ok(await sequenceStats(ctx, params.id)),
    }),
    publicRoute({
      method: 'POST',
      path: `${UNSUBSCRIBE_PATH}/:token`,
      section,
      reason: UNSUBSCRIBE_REASON,
      params: tokenParams,
      response: envelopes.data(unsubscribedView),
      summary:
        'Unsubscribe link of sequence e-mails (one-click POST): opts the contact out of sequences and exits its running enrollments.',
      handler: async ({ params }) =>
        ok(await unsubscribe(deps.orm, engine.workflows, params.token, unsubscribeKey(deps.config))),
    }),
    publicRoute({
      method: 'GET',
      path: `${UNSUBSCRIBE_PATH}/:token`,
      section,
      reason: UNSUBSCRIBE_REASON,
      params: tokenParams,
      response: { media: ['text/html'], description: 'A short HTML page saying the contact is unsubscribed.' },
      summary:
        'Unsubscribe link of sequence e-mails (opened in a browser): same effect as the POST; answers a short HTML page.',
      handler: async ({ params }) => {
        await unsubscribe(deps.orm, engine.workflows, params.token, unsubscribeKey(deps.config));
        return {
          status: 200,
          body: '<!doctype html><meta charset="utf-8"><title>Unsubscribed</title><p>You have been unsubscribed and will not receive further e-mails from this sequence.</p>',
          headers: { 'content-type': 'text/html; charset=utf-8' },
        };
      },
    }),
  ];
};
