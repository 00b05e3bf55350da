import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { conditionError, matchesAll, ROUTING_EXTRA_FIELDS, type Condition, type Subject } from './conditions';
import { LeadRoutingRule, type RoutingAssignment } from './lead-routing-rule.entity';
import { assertUsers, existingUsers } from './refs';
import type { RoutingRuleInput, RoutingRuleView } from './lead-routing.schemas';
import { RULE_ORDER, ruleSet } from './rule-set';

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

const rules = ruleSet({
  entity: LeadRoutingRule,
  what: 'lead routing rule',
  max: MAX_ROUTING_RULES,
  event: 'lead_routing_rules_changed',
  serialize: serializeRoutingRule,
});

export const listRoutingRules = rules.list;
export const getRoutingRule = rules.get;
export const deleteRoutingRule = rules.remove;

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

export async function createRoutingRule(
  ctx: Ctx,
  input: RoutingRuleInput & { name: string; assignment: RoutingAssignment },
): Promise<RoutingRuleView> {
  assertConditions(input.conditions ?? []);
  await assertAssignment(ctx, input.assignment);
  await rules.assertNameFree(ctx, input.name);
  await rules.assertRoom(ctx);
  const rule = createRecord(ctx, LeadRoutingRule, {
    name: input.name,
    description: input.description ?? null,
    conditions: input.conditions ?? [],
    assignment: input.assignment,
    isActive: input.isActive ?? true,
    sortOrder: input.sortOrder ?? 0,
    rrCursor: 0,
  });
  return rules.created(ctx, rule);
}

/** Partial update: given keys replace the stored ones (conditions and assignment as a whole). */
export async function updateRoutingRule(ctx: Ctx, id: string, input: RoutingRuleInput): Promise<RoutingRuleView> {
  const rule = await getRoutingRule(ctx, id);
  if (input.conditions) assertConditions(input.conditions);
  if (input.assignment) await assertAssignment(ctx, input.assignment);
  if (input.name !== undefined && input.name !== rule.name) await rules.assertNameFree(ctx, input.name, id);
  return rules.update(ctx, rule, input as Partial<LeadRoutingRule>);
}

/**
 * The owner for a new lead: the first active rule (by sortOrder) whose conditions all match and
 * that names at least one current user of the workspace. Round robin advances the rule's cursor
 * with one atomic UPDATE … RETURNING in the caller's transaction, so concurrent creates never get
 * the same turn; preview only peeks at the next turn.
 */
export async function routeOwner(ctx: Ctx, subject: Subject, opts: { preview: boolean }): Promise<string | null> {
  const active = await ctx.em.find(LeadRoutingRule, { isActive: true }, { orderBy: RULE_ORDER });
  for (const rule of active) {
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
