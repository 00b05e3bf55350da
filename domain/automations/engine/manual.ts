/**
 * Starts that do not come from the outbox: the trigger and test endpoints, and the public
 * webhook endpoint (secret compared in constant time, rate-limited per automation). Each records
 * its run as `queued` in one commit and answers; the worker's starter starts it (engine/intake.ts).
 */
import type { WebhookStartView } from '../automations.views';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError, notFound, validation } from '../../errors';
import { isId, newId } from '../../ids';
import { forkForWorkspace } from '../../orm/tenant';
import { consumeRateLimit } from '../../workspaces/rate-limit.service';
import { Automation } from '../automation.entity';
import { formatGraphErrors, validateAutomationGraph } from '../graph';
import { getPath, splitPath } from '../path';
import { normalizeEntity } from '../triggers';
import { isPlainObject } from '../zod-kit';
import { loadEntityContext, systemNamespace } from './context';
import type { EngineDeps } from './ports';
import { enqueueExecution } from './intake';
import type { StartedExecution } from './start';
import type { Context } from './types';

export interface ManualStartInput {
  /** Context values (namespaces such as lead, webhookData, …); they override loaded ones. */
  context?: Record<string, unknown>;
  /** Loads this record's namespaces (lead → lead, person/contact, company, owner; …) first. */
  entityType?: string;
  entityId?: string;
}

async function buildContext(
  deps: EngineDeps,
  workspaceId: string,
  input: ManualStartInput,
): Promise<{ context: Context; entityType: string | null; entityId: string | null }> {
  const entityType = input.entityType ? (normalizeEntity(input.entityType) ?? input.entityType.toLowerCase()) : null;
  const entityId = input.entityId ?? null;
  let loaded: Context = {};
  if (entityType && entityId) {
    loaded = await loadEntityContext(forkForWorkspace(deps.orm.em, workspaceId), entityType, entityId);
    if (!Object.keys(loaded).length)
      throw validation(`entityId: no ${entityType} with id ${entityId}`, [
        { path: 'entityId', error: `no ${entityType} with this id` },
      ]);
  }
  const given = input.context ?? {};
  const system = {
    ...systemNamespace(workspaceId, entityType, entityId, new Date()),
    ...(isPlainObject(given.system) ? given.system : {}),
  };
  return { context: { ...loaded, ...given, system }, entityType, entityId };
}

async function loadAutomation(deps: EngineDeps, workspaceId: string, automationId: string): Promise<Automation> {
  const automation = await forkForWorkspace(deps.orm.em, workspaceId).findOne(Automation, { _id: automationId });
  if (!automation) throw notFound('automation');
  return automation;
}

/** POST /automations/:id/trigger: an active automation only; a run-cap skip answers 409 with the reason. */
export async function triggerManually(
  deps: EngineDeps,
  workspaceId: string,
  automationId: string,
  input: ManualStartInput,
): Promise<StartedExecution> {
  const automation = await loadAutomation(deps, workspaceId, automationId);
  if (!automation.isActive)
    throw new DomainError(
      'invalid_state',
      'automation is inactive: activate it (POST /api/v1/automations/:id/toggle) or use /test',
    );
  const { context, entityType, entityId } = await buildContext(deps, workspaceId, input);
  const res = await enqueueExecution(deps, automation, {
    workspaceId,
    automationId,
    triggerType: automation.triggerType ?? 'manual',
    triggerKey: `api:${newId()}`,
    entityType,
    entityId,
    context,
  });
  if (res.status === 'skipped') throw new DomainError('invalid_state', `run skipped: ${res.reason}`);
  return res.execution;
}

/**
 * POST /automations/:id/test: active or not, in test mode (no external sends, no CRM writes,
 * delays not awaited, no run caps or counters). The graph must be complete.
 */
export async function testAutomation(
  deps: EngineDeps,
  workspaceId: string,
  automationId: string,
  input: ManualStartInput,
): Promise<StartedExecution> {
  const automation = await loadAutomation(deps, workspaceId, automationId);
  const check = validateAutomationGraph(automation.nodes, automation.edges);
  if (!check.ok) throw new DomainError('invalid_state', `automation cannot run: ${formatGraphErrors(check.errors)}`);
  const { context, entityType, entityId } = await buildContext(deps, workspaceId, input);
  const res = await enqueueExecution(deps, automation, {
    workspaceId,
    automationId,
    triggerType: automation.triggerType ?? 'test',
    triggerKey: `test:${newId()}`,
    entityType,
    entityId,
    context,
    isTest: true,
  });
  if (res.status === 'skipped') throw new DomainError('invalid_state', `run skipped: ${res.reason}`);
  return res.execution;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** Equal-length digests, so the comparison takes the same time whatever the input (its length included). */
export function secretMatches(provided: string | undefined, expected: string): boolean {
  const same = timingSafeEqual(digest(provided ?? ''), digest(expected));
  return same && provided !== undefined && expected !== '';
}

export interface WebhookStart {
  automationId: string;
  secret: string | undefined;
  body: unknown;
  /** Idempotency-Key header: a re-delivery with the same key starts nothing new. */
  deliveryKey?: string;
  limits: { perMinute: number; perDay: number };
}

const WEBHOOK_ENTITY: Record<string, string> = { Lead: 'lead', People: 'person', Company: 'company', Deal: 'deal' };

/**
 * POST /api/webhooks/automation/:automationId. Unknown, inactive and non-webhook automations are
 * one 404 (ids are not probed); a trigger without a secret refuses every call (401), as does a
 * wrong secret; nothing runs then. Calls are counted per automation before the secret check.
 */
export async function startFromWebhook(deps: EngineDeps, req: WebhookStart): Promise<WebhookStartView> {
  if (!isId(req.automationId)) throw notFound('automation');
  const em = deps.orm.em.fork({ clear: true, useContext: false });
  const automation = await em.findOne(Automation, { _id: req.automationId }, { filters: false });
  const trigger = automation?.nodes.find((n) => n.type === 'trigger');
  if (!automation || !automation.isActive || automation.triggerType !== 'webhook' || !trigger)
    throw notFound('automation');
  const config = (isPlainObject(trigger.data.config) ? trigger.data.config : {}) as {
    secret?: string | null;
    entityMapping?: { entityType?: string; entityIdField?: string };
  };

  const state = await consumeRateLimit(em, `wh${automation._id.slice(2)}`, req.limits);
  if (state.retryAfter !== undefined) {
    throw new DomainError('rate_limited', 'too many webhook calls for this automation; retry later', undefined, {
      'Retry-After': String(state.retryAfter),
    });
  }
  if (!config.secret)
    throw new DomainError(
      'unauthenticated',
      'this webhook trigger has no secret configured: set one on the trigger to accept calls',
    );
  if (!secretMatches(req.secret, config.secret))
    throw new DomainError('unauthenticated', 'missing or wrong x-webhook-secret header');
  if (!isPlainObject(req.body)) throw validation('body: must be a JSON object (its fields become webhookData.*)');

  const workspaceId = automation.workspaceId;
  const mapping = config.entityMapping;
  const kind = mapping?.entityType ? WEBHOOK_ENTITY[mapping.entityType] : undefined;
  let entityId: string | null = null;
  if (kind && mapping?.entityIdField) {
    const raw = getPath(req.body, splitPath(mapping.entityIdField));
    if (typeof raw !== 'string' || !isId(raw))
      throw validation(`${mapping.entityIdField}: must hold the id of a ${mapping.entityType} (entityMapping)`);
    entityId = raw;
  }
  const { context } = await buildContext(deps, workspaceId, {
    entityType: kind,
    entityId: entityId ?? undefined,
    context: { webhookData: req.body },
  });
  const key = req.deliveryKey && /^[\w.:-]{1,80}$/.test(req.deliveryKey) ? req.deliveryKey : newId();
  const res = await enqueueExecution(deps, automation, {
    workspaceId,
    automationId: automation._id,
    triggerType: 'webhook',
    triggerKey: `wh:${key}`,
    entityType: kind ?? null,
    entityId,
    context,
  });
  if (res.status === 'skipped') return { executionId: null, status: 'skipped', reason: res.reason };
  return { executionId: res.execution._id, status: res.execution.status };
}
