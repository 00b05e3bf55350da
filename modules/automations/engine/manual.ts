/**
 * Starts that do not come from the outbox: the trigger and test endpoints, and the public
 * webhook endpoint (secret compared in constant time, rate-limited per automation). Each records
 * its run as `queued` in one commit and answers; the worker's starter starts it (engine/intake.ts).
 */
import type { WebhookStartView } from '../automations.views';
import { secretMatches } from '../../../platform/shared/secret-match';
import { DomainError, notFound, validation } from '../../../platform/errors';
import { isId, newId } from '../../../platform/ids';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { consumeRateLimit } from '../../workspaces';
import { Automation } from '../automation.entity';
import { formatGraphErrors, validateAutomationGraph } from '../graph';
import { getPath, splitPath } from '../../../platform/shared/path.pure';
import { normalizeEntity } from '../triggers';
import { isPlainObject } from '../../../platform/shared/zod-kit';
import { loadEntityContext, systemNamespace } from './context';
import type { EngineDeps } from './ports';
import { enqueueExecution, enqueueGuarded, hasRunCaps, type AutomationSnapshot } from './intake';
import { recordSkip } from './skips';
import type { StartedExecution, StartRequest, StartResult } from './start';
import type { Context } from './types.pure';

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

/** The trigger and test endpoints' start: the run's context from the input, the run recorded; a skip is a 409. */
async function startManualRun(
  deps: EngineDeps,
  workspaceId: string,
  automation: Automation,
  input: ManualStartInput,
  start: Pick<StartRequest, 'triggerType' | 'triggerKey' | 'isTest'>,
): Promise<StartedExecution> {
  const { context, entityType, entityId } = await buildContext(deps, workspaceId, input);
  const res = await enqueueExecution(deps, automation, {
    workspaceId,
    automationId: automation._id,
    ...start,
    entityType,
    entityId,
    context,
  });
  if (res.status === 'skipped') throw new DomainError('invalid_state', `run skipped: ${res.reason}`);
  return res.execution;
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
  return startManualRun(deps, workspaceId, automation, input, {
    triggerType: automation.triggerType ?? 'manual',
    triggerKey: `api:${newId()}`,
  });
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
  return startManualRun(deps, workspaceId, automation, input, {
    triggerType: automation.triggerType ?? 'test',
    triggerKey: `test:${newId()}`,
    isTest: true,
  });
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

/** A webhook automation as last loaded by this process (a snapshot: no ORM entity is kept). */
interface WebhookAutomation extends AutomationSnapshot {
  workspaceId: string;
  updatedAt: Date;
  isActive: boolean;
  triggerType?: string | null;
}
const WEBHOOK_CACHE_TTL_MS = 60_000;
const WEBHOOK_CACHE_MAX = 2_000;
const webhookCache = new Map<string, { a: WebhookAutomation | null; at: number }>();
const webhookLoads = new Map<string, Promise<WebhookAutomation | null>>();

/**
 * The automation of a webhook call: from this process's cache when recent, else loaded. Nothing is
 * trusted blindly: the run is recorded only if the automation still has the cached version and
 * updatedAt and is active (checked in the same statement, enqueueGuarded); otherwise it is reloaded.
 */
async function webhookAutomation(
  deps: EngineDeps,
  id: string,
  reload: boolean,
): Promise<{ a: WebhookAutomation | null; cached: boolean }> {
  const hit = webhookCache.get(id);
  if (hit && !reload && Date.now() - hit.at < WEBHOOK_CACHE_TTL_MS) return { a: hit.a, cached: true };
  // A burst of calls to an automation not cached yet shares one load (a reload after a stale entry loads anew).
  const pending = reload ? undefined : webhookLoads.get(id);
  if (pending) return { a: await pending, cached: false };
  const load = loadWebhookAutomation(deps, id);
  if (!reload) {
    webhookLoads.set(id, load);
    void load.then(
      () => webhookLoads.delete(id),
      () => webhookLoads.delete(id),
    );
  }
  return { a: await load, cached: false };
}

async function loadWebhookAutomation(deps: EngineDeps, id: string): Promise<WebhookAutomation | null> {
  const em = deps.orm.em.fork({ clear: true, useContext: false });
  const e = await em.findOne(Automation, { _id: id }, { filters: false });
  const a: WebhookAutomation | null = e
    ? {
        _id: e._id,
        workspaceId: e.workspaceId,
        name: e.name,
        version: e.version,
        updatedAt: e.updatedAt,
        isActive: e.isActive,
        triggerType: e.triggerType,
        nodes: e.nodes,
        edges: e.edges,
        executionSettings: e.executionSettings,
        rateLimits: e.rateLimits,
      }
    : null;
  if (webhookCache.size >= WEBHOOK_CACHE_MAX) webhookCache.delete(webhookCache.keys().next().value!);
  // Unknown ids are not cached: a probe must not fill the cache, and a new automation is found at once.
  if (a) webhookCache.set(id, { a, at: Date.now() });
  else webhookCache.delete(id);
  return a;
}

/** Thrown by a refusal decided on cached data: the loop reloads and decides again. */
const STALE = new Error('stale webhook automation');

const rateLimited = (retryAfter: number): DomainError =>
  new DomainError('rate_limited', 'too many webhook calls for this automation; retry later', undefined, {
    'Retry-After': String(retryAfter),
  });

/**
 * POST /api/webhooks/automation/:automationId. Unknown, inactive and non-webhook automations are
 * one 404 (ids are not probed); a trigger without a secret refuses every call (401), as does a
 * wrong secret; nothing runs then. Every call to a webhook automation is counted in its rate limit
 * (also refused ones, so secrets cannot be guessed at speed). The usual call takes one statement:
 * the automation comes from a short-lived per-process cache and the statement that records the run
 * also checks that cache entry is current and counts the call (enqueueGuarded).
 */
export async function startFromWebhook(deps: EngineDeps, req: WebhookStart): Promise<WebhookStartView> {
  if (!isId(req.automationId)) throw notFound('automation');
  const rateKey = `wh${req.automationId.slice(2)}`;
  for (let attempt = 0; ; attempt++) {
    try {
      return await webhookAttempt(deps, req, rateKey, attempt);
    } catch (err) {
      if (err !== STALE || attempt > 0) throw err;
    }
  }
}

async function webhookAttempt(
  deps: EngineDeps,
  req: WebhookStart,
  rateKey: string,
  attempt: number,
): Promise<WebhookStartView> {
  const { a: automation, cached } = await webhookAutomation(deps, req.automationId, attempt > 0);
  const trigger = automation?.nodes.find((n) => n.type === 'trigger');
  // A refusal read from the cache is confirmed on a fresh load first (the secret may have changed).
  if (!automation || !automation.isActive || automation.triggerType !== 'webhook' || !trigger) {
    if (cached) throw STALE;
    throw notFound('automation');
  }
  const config = (isPlainObject(trigger.data.config) ? trigger.data.config : {}) as {
    secret?: string | null;
    entityMapping?: { entityType?: string; entityIdField?: string };
  };
  /** Counts the call in the automation's rate-limit windows (a statement of its own); 429 over the limit. */
  const countCall = async (): Promise<void> => {
    const state = await consumeRateLimit(deps.orm.em.fork({ clear: true, useContext: false }), rateKey, req.limits);
    if (state.retryAfter !== undefined) throw rateLimited(state.retryAfter);
  };
  /** Refusals are counted too: over the limit the answer is 429 whatever else is wrong. */
  const refuse = async (err: DomainError): Promise<never> => {
    if (cached) throw STALE;
    await countCall();
    throw err;
  };
  if (!config.secret)
    return refuse(
      new DomainError(
        'unauthenticated',
        'this webhook trigger has no secret configured: set one on the trigger to accept calls',
      ),
    );
  if (!secretMatches(req.secret, config.secret))
    return refuse(new DomainError('unauthenticated', 'missing or wrong x-webhook-secret header'));
  if (!isPlainObject(req.body))
    return refuse(validation('body: must be a JSON object (its fields become webhookData.*)'));

  const workspaceId = automation.workspaceId;
  const mapping = config.entityMapping;
  const kind = mapping?.entityType ? WEBHOOK_ENTITY[mapping.entityType] : undefined;
  let entityId: string | null = null;
  if (kind && mapping?.entityIdField) {
    const raw = getPath(req.body, splitPath(mapping.entityIdField));
    if (typeof raw !== 'string' || !isId(raw))
      return refuse(
        validation(`${mapping.entityIdField}: must hold the id of a ${mapping.entityType} (entityMapping)`),
      );
    entityId = raw;
  }
  const key = req.deliveryKey && /^[\w.:-]{1,80}$/.test(req.deliveryKey) ? req.deliveryKey : newId();
  const start = async (): Promise<StartRequest> => ({
    workspaceId,
    automationId: automation._id,
    triggerType: 'webhook',
    triggerKey: `wh:${key}`,
    entityType: kind ?? null,
    entityId,
    context: (
      await buildContext(deps, workspaceId, {
        entityType: kind,
        entityId: entityId ?? undefined,
        context: { webhookData: req.body },
      }).catch((err: unknown) => (err instanceof DomainError ? refuse(err) : Promise.reject(err)))
    ).context,
  });
  let res: StartResult;
  if (hasRunCaps(automation) || attempt > 0) {
    // The locked path (run caps), or a second attempt after a stale cache entry: as before the cache.
    await countCall().catch(async (err: unknown) => {
      // An authenticated call over the limit is a skip of this automation (issue 27).
      if (err instanceof DomainError && err.code === 'rate_limited')
        await recordSkip(deps.orm, {
          workspaceId,
          automationId: automation._id,
          triggerType: 'webhook',
          triggerKey: `wh:${key}`,
          entityType: kind ?? null,
          entityId,
          reason: 'rate_limited',
          message: 'too many webhook calls for this automation',
          details: { ...req.limits, retryAfter: Number(err.headers?.['Retry-After']) || null },
        });
      throw err;
    });
    res = await enqueueExecution(deps, automation, await start());
  } else {
    const guarded = await enqueueGuarded(
      deps,
      automation,
      { version: automation.version, updatedAt: automation.updatedAt, rateKey, limits: req.limits },
      await start(),
    );
    if (guarded.status === 'stale') throw STALE;
    if (guarded.status === 'rate_limited') throw rateLimited(guarded.retryAfter);
    res = guarded;
  }
  if (res.status === 'skipped') return { executionId: null, status: 'skipped', reason: res.reason };
  return { executionId: res.execution._id, status: res.execution.status };
}
