import type { Ctx } from '../../platform/context';
import { conflict, DomainError, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { applyPatch } from '../../platform/shared/changes';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { conditionError, matchesAll, ROUTING_EXTRA_FIELDS, type Condition, type Subject } from './conditions';
import { LeadRoutingRule, type RoutingAssignment } from './lead-routing-rule.entity';
import { assertUsers, existingUsers } from './refs';
import type { RoutingRuleInput, RoutingRuleView } from './lead-routing.schemas';
import { getRecord } from '../../platform/shared/record-service';

/** Lead creation walks the active rules in order, and the list is not paginated: keep it bounded. */
export const MAX_ROUTING_RULES = 100;

export const ROUTING_RULE_FIELDS = [
  '_id',
  'name',
  'description',
  'conditions',
  'assignment',
  'isActive',
  'sortOrder',
  'createdAt',
  'updatedAt',
] as const;

export const serializeRoutingRule = (r: LeadRoutingRule): RoutingRuleView => plainOf(r, ROUTING_RULE_FIELDS);

const RULE_ORDER = { sortOrder: 'asc', createdAt: 'asc', _id: 'asc' } as const;

export async function listRoutingRules(
  ctx: Ctx,
  page: { page: number; limit: number },
): Promise<{ items: RoutingRuleView[]; total: number }> {
  const [rules, total] = await ctx.em.findAndCount(
    LeadRoutingRule,
    {},
    { orderBy: RULE_ORDER, limit: page.limit, offset: (page.page - 1) * page.limit },
  );
  return { items: rules.map(serializeRoutingRule), total };
}

export function getRoutingRule(ctx: Ctx, id: string): Promise<LeadRoutingRule> {
  return getRecord(ctx, LeadRoutingRule, id, 'lead routing rule');
}

async function assertNameFree(ctx: Ctx, name: string, exceptId?: string): Promise<void> {
  const other = await ctx.em.findOne(LeadRoutingRule, { name, ...(exceptId ? { _id: { $ne: exceptId } } : {}) });
  if (other) throw conflict(`a lead routing rule named "${name}" already exists`);
}

function assertConditions(conditions: readonly Condition[]): void {
  conditions.forEach((c, i) => {
    // Routing conditions name their operator `operator`; scoring rules call it `condition`.
    const error = conditionError(c, ROUTING_EXTRA_FIELDS)?.replace(/^condition:/, 'operator:');
    if (error) throw validation(`conditions.${i}.${error}`);
  });
}

async function assertAssignment(ctx: Ctx, a: RoutingAssignment): Promise<void> {
  if (a.type === 'user') await assertUsers(ctx, [a.userId], 'assignment.userId');
  else await assertUsers(ctx, a.userIds, 'assignment.userIds');
}

function rulesChanged(ctx: Ctx, action: 'created' | 'updated' | 'deleted', rule: Record<string, unknown>): void {
  emit(ctx, {
    type: 'lead_routing_rules_changed',
    entityType: 'workspace',
    entityId: ctx.actor.workspaceId,
    payload: { action, rule },
  });
}

export async function createRoutingRule(
  ctx: Ctx,
  input: RoutingRuleInput & { name: string; assignment: RoutingAssignment },
): Promise<RoutingRuleView> {
  assertConditions(input.conditions ?? []);
  await assertAssignment(ctx, input.assignment);
  await assertNameFree(ctx, input.name);
  if ((await ctx.em.count(LeadRoutingRule, {})) >= MAX_ROUTING_RULES) {
    throw new DomainError(
      'invalid_state',
      `a workspace can have at most ${MAX_ROUTING_RULES} lead routing rules; delete or reuse one`,
    );
  }
  const rule = createRecord(ctx, LeadRoutingRule, {
    name: input.name,
    description: input.description ?? null,
    conditions: input.conditions ?? [],
    assignment: input.assignment,
    isActive: input.isActive ?? true,
    sortOrder: input.sortOrder ?? 0,
    rrCursor: 0,
  });
  rulesChanged(ctx, 'created', serializeRoutingRule(rule));
  await ctx.em.flush();
  return serializeRoutingRule(rule);
}

/** Partial update: given keys replace the stored ones (conditions and assignment as a whole). */
export async function updateRoutingRule(ctx: Ctx, id: string, input: RoutingRuleInput): Promise<RoutingRuleView> {
  const rule = await getRoutingRule(ctx, id);
  if (input.conditions) assertConditions(input.conditions);
  if (input.assignment) await assertAssignment(ctx, input.assignment);
  if (input.name !== undefined && input.name !== rule.name) await assertNameFree(ctx, input.name, id);
  const changes = applyPatch(rule, input as Partial<LeadRoutingRule>);
  if (Object.keys(changes).length) {
    rule.updatedAt = new Date();
    rulesChanged(ctx, 'updated', { ...serializeRoutingRule(rule), changes });
    await ctx.em.flush();
  }
  return serializeRoutingRule(rule);
}

export async function deleteRoutingRule(ctx: Ctx, id: string): Promise<void> {
  const rule = await getRoutingRule(ctx, id);
  ctx.em.remove(rule);
  rulesChanged(ctx, 'deleted', serializeRoutingRule(rule));
  await ctx.em.flush();
}

/**
 * The owner for a new lead: the first active rule (by sortOrder) whose conditions all match and
 * that names at least one current user of the workspace. Round robin advances the rule's cursor
 * with one atomic UPDATE … RETURNING in the caller's transaction, so concurrent creates never get
 * the same turn; preview only peeks at the next turn.
 */
export async function routeOwner(ctx: Ctx, subject: Subject, opts: { preview: boolean }): Promise<string | null> {
  const rules = await ctx.em.find(LeadRoutingRule, { isActive: true }, { orderBy: RULE_ORDER });
  for (const rule of rules) {
    if (!matchesAll(subject, rule.conditions)) continue;
    const { assignment } = rule;
    const candidates = await existingUsers(ctx, assignment.type === 'user' ? [assignment.userId] : assignment.userIds);
    if (!candidates.length) continue;
    if (assignment.type === 'user') return candidates[0]!;
    if (opts.preview) return candidates[rule.rrCursor % candidates.length]!;
    const rows = await ctx.em.execute<{ rr_cursor: number }[]>(
      'update lead_routing_rule set rr_cursor = rr_cursor + 1 where id = ? and workspace_id = ? returning rr_cursor',
      [rule._id, ctx.actor.workspaceId],
    );
    const turn = (rows[0]?.rr_cursor ?? 1) - 1;
    return candidates[turn % candidates.length]!;
  }
  return null;
}
