import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { Person } from '../people';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { conditionError, type ConditionOperator, type ContactFacts, type LeadFacts, type Subject } from './conditions';
import type { Lead } from './lead.entity';
import { LeadScoringRule } from './lead-scoring-rule.entity';
import { scoreLead, type ScoreResult } from './scoring';
import type { ScoringRuleInput, ScoringRuleView } from './lead-scoring.schemas';
import { RULE_ORDER, ruleSet } from './rule-set';

export const SCORING_RULE_FIELDS = [
  '_id',
  'name',
  'description',
  'field',
  'condition',
  'value',
  'points',
  'isActive',
  'sortOrder',
  'createdAt',
  'updatedAt',
] as const;
export const RULES_CHANGED_EVENT = 'lead_scoring_rules_changed';
/** Every lead write evaluates all active rules, and the list is not paginated: keep it bounded. */
export const MAX_SCORING_RULES = 200;

export const serializeScoringRule = (r: LeadScoringRule): ScoringRuleView => plainOf(r, SCORING_RULE_FIELDS);

const rules = ruleSet({
  entity: LeadScoringRule,
  what: 'lead scoring rule',
  max: MAX_SCORING_RULES,
  event: RULES_CHANGED_EVENT,
  serialize: serializeScoringRule,
});

export const listScoringRules = rules.list;
export const getScoringRule = rules.get;
export const deleteScoringRule = rules.remove;

/** Active rules in evaluation order, for one workspace-bound EM. */
export function activeScoringRules(em: EntityManager): Promise<LeadScoringRule[]> {
  return em.find(LeadScoringRule, { isActive: true }, { orderBy: RULE_ORDER });
}

function assertShape(rule: { field: string; condition: ConditionOperator; value?: unknown }): void {
  const error = conditionError({ field: rule.field, operator: rule.condition, value: rule.value });
  if (error) throw validation(error, [{ path: error.split(':')[0], error: error.slice(error.indexOf(':') + 2) }]);
}

export async function createScoringRule(
  ctx: Ctx,
  input: ScoringRuleInput & { name: string; field: string; condition: ConditionOperator; points: number },
): Promise<ScoringRuleView> {
  assertShape(input);
  await rules.assertNameFree(ctx, input.name);
  await rules.assertRoom(ctx);
  const rule = createRecord(ctx, LeadScoringRule, {
    name: input.name,
    description: input.description ?? null,
    field: input.field,
    condition: input.condition,
    value: input.value ?? null,
    points: input.points,
    isActive: input.isActive ?? true,
    sortOrder: input.sortOrder ?? 0,
  });
  return rules.created(ctx, rule);
}

/** Partial update; the merged rule is validated as a whole (condition and value must fit the field). */
export async function updateScoringRule(ctx: Ctx, id: string, input: ScoringRuleInput): Promise<ScoringRuleView> {
  const rule = await getScoringRule(ctx, id);
  if (input.name !== undefined && input.name !== rule.name) await rules.assertNameFree(ctx, input.name, id);
  const patch: Partial<LeadScoringRule> = { ...(input as Partial<LeadScoringRule>) };
  // Switching to exists/not_exists without naming a value drops the old one rather than failing.
  if ((input.condition === 'exists' || input.condition === 'not_exists') && input.value === undefined)
    patch.value = null;
  const merged = {
    field: patch.field ?? rule.field,
    condition: patch.condition ?? rule.condition,
    value: patch.value !== undefined ? patch.value : rule.value,
  };
  assertShape(merged);
  return rules.update(ctx, rule, patch);
}

export function contactFacts(person: Person | null | undefined): ContactFacts | null {
  if (!person) return null;
  return {
    firstName: person.firstName,
    lastName: person.lastName,
    title: person.title,
    emails: person.emails.map((e) => e.email).filter(Boolean),
    phones: person.phones.map((p) => p.phone).filter(Boolean),
  };
}

/** The lead plus its linked person, loaded through the workspace-bound EM. */
export async function subjectFor(em: EntityManager, lead: LeadFacts): Promise<Subject> {
  const person = lead.personRef ? await em.findOne(Person, { _id: lead.personRef }) : null;
  return { lead, contact: contactFacts(person) };
}

/** Score of one lead against the workspace's active rules (called on every create and update). */
export async function computeScore(em: EntityManager, subject: Subject): Promise<ScoreResult> {
  return scoreLead(await activeScoringRules(em), subject);
}

/**
 * Lead scores depend on tags and custom fields, so a write that changes them outside the lead
 * service (bulk tags) rescores the leads in the same flush. Returns the score changes per lead.
 */
export async function rescoreChangedLeads(ctx: Ctx, leads: Lead[]): Promise<Map<string, { from: number; to: number }>> {
  const changed = new Map<string, { from: number; to: number }>();
  if (!leads.length) return changed;
  const active = await activeScoringRules(ctx.em);
  const personIds = [...new Set(leads.map((l) => l.personRef).filter((id): id is string => Boolean(id)))];
  const people = new Map(
    (personIds.length ? await ctx.em.find(Person, { _id: { $in: personIds } }) : []).map((p) => [p._id, p]),
  );
  for (const lead of leads) {
    const result = scoreLead(active, {
      lead,
      contact: contactFacts(lead.personRef ? people.get(lead.personRef) : null),
    });
    if (result.score !== lead.score) changed.set(lead._id, { from: lead.score, to: result.score });
    lead.score = result.score;
    lead.scoreBreakdown = result.breakdown;
  }
  return changed;
}
