import { z } from 'zod';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { CONDITION_OPERATORS } from './conditions';
import { conditionField, conditionOperator, conditionValue, ruleRecordView, sortOrder } from './lead-scoring.schemas';
import { ref } from '../../platform/references/refs';

export const MAX_ROUTING_CONDITIONS = 20;
export const MAX_ROUND_ROBIN_USERS = 50;

const condition = z.object({ field: conditionField, operator: conditionOperator, value: conditionValue.optional() });

const assignment = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('user'), userId: ref('user', objectId) }),
    z.object({
      type: z.literal('round_robin'),
      userIds: z
        .array(ref('user', objectId))
        .min(1, 'at least one user')
        .max(MAX_ROUND_ROBIN_USERS, `at most ${MAX_ROUND_ROBIN_USERS} users`)
        .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a user'),
    }),
  ],
  { message: 'must be { type: "user", userId } or { type: "round_robin", userIds: [...] }' },
);

const ruleFields = {
  name: requiredText(200).describe('unique per workspace'),
  description: clearableText(1000),
  conditions: z
    .array(condition)
    .max(MAX_ROUTING_CONDITIONS, `at most ${MAX_ROUTING_CONDITIONS} conditions`)
    .describe('all must match; empty matches every lead; fields and operators as scoring rules, plus score'),
  assignment,
  isActive: z.boolean(),
  sortOrder,
};

export const createRoutingRuleBody = z.object({ name: ruleFields.name, assignment }).extend(
  z
    .object({
      description: ruleFields.description,
      conditions: ruleFields.conditions,
      isActive: ruleFields.isActive,
      sortOrder,
    })
    .partial().shape,
);

/** PUT is partial; conditions and assignment are replaced as a whole when given. */
export const updateRoutingRuleBody = z.object(ruleFields).partial();

const viewScalar = z.union([z.string(), z.number(), z.boolean()]);

export const routingRuleView = z.object({
  ...ruleRecordView,
  name: z.string(),
  description: z.string().nullable(),
  conditions: z.array(
    z.object({
      field: z.string(),
      operator: z.enum(CONDITION_OPERATORS),
      value: z
        .union([viewScalar, z.array(viewScalar)])
        .nullable()
        .optional(),
    }),
  ),
  assignment: z.union([
    z.object({ type: z.literal('user'), userId: z.string() }),
    z.object({ type: z.literal('round_robin'), userIds: z.array(z.string()) }),
  ]),
  isActive: z.boolean(),
  sortOrder: z.number().int(),
});
export type RoutingRuleView = z.infer<typeof routingRuleView>;

/** What the service writes: the parsed updateRoutingRuleBody (create bodies add their required fields). */
export type RoutingRuleInput = z.infer<typeof updateRoutingRuleBody>;
