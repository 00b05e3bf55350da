import { z } from 'zod';
import { CONDITION_OPERATORS } from './conditions';
import { clearableText, requiredText } from '../../platform/shared/schemas';

export const MAX_RULE_POINTS = 100;
export const MAX_SORT_ORDER = 1_000_000;

const scalar = z.union([z.string().max(500, 'must be at most 500 characters'), z.number(), z.boolean()], {
  message: 'must be a string, number, boolean or an array of them',
});

/**
 * A condition's value; which form fits which operator (and the 100-item bound) is checked by the domain
 * (conditions.ts).
 */
export const conditionValue = z
  .union([scalar, z.array(scalar), z.null()], { message: 'must be a string, number, boolean or an array of them' })
  .describe('omit for exists/not_exists; an array for in/not_in; a number for greater_than/less_than');

export const conditionOperator = z
  .enum(CONDITION_OPERATORS, { message: `must be one of ${CONDITION_OPERATORS.join(', ')}` })
  .describe(
    'exists/not_exists apply to every field; on hasEmail, hasPhone and hasValue they mean true/false (same as equals true/false)',
  );

export const conditionField = requiredText(120).describe(
  'hasEmail, hasPhone, hasValue, source, status, contactType (person|company|none), value, tags, customFields.<key>, contact.<firstName|lastName|title|email|phone>',
);

export const sortOrder = z.number().int('must be an integer').min(-MAX_SORT_ORDER).max(MAX_SORT_ORDER);

const ruleFields = {
  name: requiredText(200).describe('unique per workspace'),
  description: clearableText(1000),
  field: conditionField,
  condition: conditionOperator,
  value: conditionValue,
  points: z
    .number()
    .int('must be an integer')
    .min(-MAX_RULE_POINTS, `must be at least -${MAX_RULE_POINTS}`)
    .max(MAX_RULE_POINTS, `must be at most ${MAX_RULE_POINTS}`),
  isActive: z.boolean(),
  sortOrder,
};

export const createScoringRuleBody = z
  .object({
    name: ruleFields.name,
    field: ruleFields.field,
    condition: ruleFields.condition,
    points: ruleFields.points,
  })
  .extend(
    z
      .object({
        description: ruleFields.description,
        value: ruleFields.value,
        isActive: ruleFields.isActive,
        sortOrder,
      })
      .partial().shape,
  );

/** PUT is partial; the merged rule must still be consistent (checked by the domain). */
export const updateScoringRuleBody = z.object(ruleFields).partial();

/** `_id`, `createdAt`, `updatedAt` of a rule view. */
export const ruleRecordView = {
  _id: z.string().describe('24-hex object id'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};

const viewScalar = z.union([z.string(), z.number(), z.boolean()]);

export const scoringRuleView = z.object({
  ...ruleRecordView,
  name: z.string(),
  description: z.string().nullable(),
  field: z.string(),
  condition: z.enum(CONDITION_OPERATORS),
  value: z.union([viewScalar, z.array(viewScalar)]).nullable(),
  points: z.number().int(),
  isActive: z.boolean(),
  sortOrder: z.number().int(),
});
export type ScoringRuleView = z.infer<typeof scoringRuleView>;

/** What the service writes: the parsed updateScoringRuleBody (create bodies add their required fields). */
export type ScoringRuleInput = z.infer<typeof updateScoringRuleBody>;
