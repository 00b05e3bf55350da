import { z } from 'zod';
import { CUSTOM_FIELD_ENTITY_TYPES, CUSTOM_FIELD_TYPES } from './custom-field-definition.entity';
import { CUSTOM_FIELD_KEY_RE, MAX_OPTIONS } from './definition-rules';
import { filterValueProblem, SEARCH_OPERATORS } from './search-conditions';
import { RECORD_TYPES } from '../../platform/shared/record-kinds';
import { boolParam, pageParams } from '../../platform/shared/list-query';
import { clearableText, requiredText } from '../../platform/shared/schemas';
import { dateTimeView, idView, openObjectView } from '../../platform/shared/views';

const entityType = z.enum(CUSTOM_FIELD_ENTITY_TYPES, {
  message: `must be one of: ${CUSTOM_FIELD_ENTITY_TYPES.join(', ')}`,
});
const fieldType = z.enum(CUSTOM_FIELD_TYPES, { message: `must be one of: ${CUSTOM_FIELD_TYPES.join(', ')}` });

/** An option is { value, label?, color? } or a plain string (used as value and label). */
const option = z.union([
  z
    .string()
    .trim()
    .min(1, 'option must not be empty')
    .max(100, 'option value must be at most 100 characters')
    .transform((value) => ({ value, label: value })),
  z
    .object({
      value: z
        .string()
        .trim()
        .min(1, 'option value must not be empty')
        .max(100, 'option value must be at most 100 characters'),
      label: z.string().trim().max(200, 'option label must be at most 200 characters').optional(),
      color: z.string().trim().max(20, 'option color must be at most 20 characters').nullable().optional(),
    })
    .transform((o) => ({ value: o.value, label: o.label || o.value, ...(o.color ? { color: o.color } : {}) })),
]);

const definitionFields = {
  label: requiredText(200),
  type: fieldType,
  description: clearableText(1000),
  options: z.array(option).max(MAX_OPTIONS, `at most ${MAX_OPTIONS} options`),
  required: z.boolean(),
  order: z.number().int('must be an integer').min(0).max(100_000),
  showInCreateDialog: z.boolean(),
};

const { label, type, ...optionalFields } = definitionFields;

export const createDefinitionBody = z
  .object({
    entityType,
    key: z
      .string()
      .regex(
        CUSTOM_FIELD_KEY_RE,
        'must start with a lowercase letter and contain only letters, digits and _ (at most 64 characters)',
      ),
    label,
    type,
  })
  .extend(z.object(optionalFields).partial().shape);

/** Partial update; `key` and `entityType` may be sent only with their current values. */
export const updateDefinitionBody = z.object({ ...definitionFields, key: z.string(), entityType }).partial();

export const listDefinitionsQuery = z.object({ ...pageParams(100), entityType: entityType.optional() });

export const projectDefinitionsQuery = z.object({
  ...pageParams(100),
  entityType: z.enum(['project', 'task'], { message: 'must be one of: project, task' }).optional(),
  forCreateDialog: boolParam.optional().describe('true: only fields shown in the create dialog'),
});

const scalar = z.union([z.string().max(1000), z.number(), z.boolean()]);

export const searchFilter = z
  .object({
    key: z.string().trim().min(1, 'key is required').max(100, 'key must be at most 100 characters'),
    operator: z.enum(SEARCH_OPERATORS, { message: `must be one of: ${SEARCH_OPERATORS.join(', ')}` }),
    value: z.union([scalar, z.array(scalar)]).optional(),
  })
  .superRefine((f, ctx) => {
    const problem = filterValueProblem(f);
    if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
  });

export const MAX_SEARCH_FILTERS = 20;

export const searchBody = z.object({
  entityType: z.enum(RECORD_TYPES, { message: `must be one of: ${RECORD_TYPES.join(', ')}` }),
  filters: z
    .array(searchFilter)
    .min(1, 'at least one filter is required')
    .max(MAX_SEARCH_FILTERS, `at most ${MAX_SEARCH_FILTERS} filters`),
  page: z.number().int('page must be an integer').min(1, 'page must be at least 1').default(1),
  limit: z
    .number()
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(20),
});

/** What the service writes: the parsed updateDefinitionBody (create bodies add their required fields). */
export type DefinitionInput = z.infer<typeof updateDefinitionBody>;

export const customFieldOptionView = z.object({
  value: z.string(),
  label: z.string(),
  color: z.string().nullable().optional(),
});

/** A custom field definition as the API shows it. */
export const customFieldDefinitionView = z.object({
  _id: idView,
  entityType: z.enum(CUSTOM_FIELD_ENTITY_TYPES),
  key: z.string().describe('the key values are stored under on records'),
  label: z.string(),
  type: z.enum(CUSTOM_FIELD_TYPES),
  description: z.string().nullable(),
  options: z.array(customFieldOptionView).describe('choices of select and multi_select fields'),
  required: z.boolean(),
  order: z.number().int(),
  showInCreateDialog: z.boolean(),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type CustomFieldDefinitionView = z.infer<typeof customFieldDefinitionView>;

/**
 * A matching record: the full record of the searched entity type, as GET /companies/:id,
 * /people/:id, /leads/:id or /deals/:id show it.
 */
export const customFieldSearchHitView = z
  .object({ _id: idView })
  .catchall(z.unknown())
  .describe('the full record of entityType (as its own GET /<type>/:id shows it)');

/** GET /custom-fields/search: the self-description of the POST. */
export const customFieldSearchDescriptionView = z.object({
  method: z.literal('POST'),
  path: z.string(),
  description: z.string(),
  body: openObjectView.describe('body fields with their type, limits and defaults'),
  operators: z.array(z.object({ name: z.enum(SEARCH_OPERATORS), description: z.string() })),
  response: z.string().describe('shape of the answer'),
  example: z.object({ request: openObjectView, response: openObjectView }),
});
export type CustomFieldSearchDescriptionView = z.infer<typeof customFieldSearchDescriptionView>;
