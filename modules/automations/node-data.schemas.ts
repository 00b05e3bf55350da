/**
 * `node.data` of the logic nodes (condition, delay, ai, lookup) and `data.config` of triggers,
 * with the spec's defaults. Logic nodes keep settings on `data`, never under `config`.
 */
import { z } from 'zod';
import {
  CONDITION_DATA_TYPES,
  CONDITION_LOGIC,
  CONDITION_OPERATORS,
  LOOKUP_ENTITY_TYPES,
  LOOKUP_MODES,
  RECORD_CHANGE_TYPES,
  RECORD_ENTITY_TYPES,
  TAG_TRIGGER_ENTITY_TYPES,
  VALUELESS_OPERATORS,
  WEBHOOK_ENTITY_TYPES,
  type ConditionOperator,
  type TriggerType,
} from './definition.schemas';
import { AUTOMATION_NAMESPACES, parsePlaceholder, pathProblem } from '../../platform/shared/placeholders.pure';
import { compileSafeRegex, parseRegexValue } from './safe-regex.pure';
import { parseScheduleConfig } from './schedule';
import { parseDateInput } from '../../platform/shared/zoned-time.pure';
import { MAX_WAIT_MINUTES, WAIT_FORMS_DOC, WAIT_UNITS, waitDurationOf } from '../../platform/shared/wait-duration';
import { ref } from '../../platform/references/refs';
import {
  hasPlaceholder,
  isPlainObject,
  zArray,
  zBoolean,
  zEnum,
  zJsonObject,
  zNumber,
  zObject,
  zRequiredText,
  zString,
} from '../../platform/shared/zod-kit';

const optId = () => zString().trim().max(100, 'must be at most 100 characters').optional();

// ── triggers ────────────────────────────────────────────────────────────────────────────────

const scheduledConfig = z.unknown().superRefine((v, ctx) => {
  for (const e of parseScheduleConfig(v).errors)
    ctx.addIssue({ code: 'custom', message: e.error, path: e.path ? [e.path] : [] });
});

export const TRIGGER_CONFIG_SCHEMAS: Partial<Record<TriggerType, z.ZodType>> = {
  deal_stage_changed: zObject({
    stageId: z
      .union([ref('stage', zString().max(100)), zNumber()])
      .nullable()
      .optional(),
  }),
  tag_added: zObject({
    entityType: zEnum(TAG_TRIGGER_ENTITY_TYPES).default('all'),
    tagId: zString().trim().max(100).default('any'),
  }),
  tag_removed: zObject({
    entityType: zEnum(TAG_TRIGGER_ENTITY_TYPES).default('all'),
    tagId: zString().trim().max(100).default('any'),
  }),
  record_created: zObject({ entityTypes: zArray(zEnum(RECORD_ENTITY_TYPES)).min(1).max(20).default(['all']) }),
  record_changed: zObject({
    entityTypes: zArray(zEnum(RECORD_ENTITY_TYPES)).min(1).max(20).default(['all']),
    changeTypes: zArray(zEnum(RECORD_CHANGE_TYPES)).min(1).max(10).optional(),
    tagId: optId(),
  }),
  scheduled: scheduledConfig,
  webhook: zObject({
    secret: zString().max(200, 'must be at most 200 characters').nullable().optional(),
    entityMapping: zObject({
      entityType: zEnum(WEBHOOK_ENTITY_TYPES).default('none'),
      entityIdField: zString().trim().max(200).optional(),
    })
      .superRefine((m, ctx) => {
        if (m.entityType !== 'none' && !m.entityIdField)
          ctx.addIssue({
            code: 'custom',
            path: ['entityIdField'],
            message: `is required when entityType is ${m.entityType} (the webhook body field holding the id)`,
          });
      })
      .optional(),
  }),
  sms_received: zObject({ keyword: zString().trim().max(50).optional() }),
  sms_replied: zObject({ keyword: zString().trim().max(50).optional() }),
  booking_created: zObject({ bookingConfigId: ref('booking-config', optId()) }),
  booking_cancelled: zObject({ bookingConfigId: ref('booking-config', optId()) }),
  booking_rescheduled: zObject({ bookingConfigId: ref('booking-config', optId()) }),
  booking_approval_requested: zObject({ bookingConfigId: ref('booking-config', optId()) }),
  booking_approval_reminder: zObject({ bookingConfigId: ref('booking-config', optId()) }),
  calculator_submission: zObject({ calculatorTemplateId: ref('calculator-template', optId()) }),
  custom_object_created: zObject({ customObjectId: ref('custom-object', optId()) }),
  custom_object_updated: zObject({ customObjectId: ref('custom-object', optId()) }),
  agent_field_change: zObject({ agentId: ref('agent', optId()) }),
  agent_new_company: zObject({ agentId: ref('agent', optId()) }),
};

// ── delay ───────────────────────────────────────────────────────────────────────────────────

export const DELAY_UNITS = WAIT_UNITS;
export const MAX_DELAY_MINUTES = MAX_WAIT_MINUTES;

/** Minutes of a delay node (every alias of the wait family, see shared/wait-duration); null when invalid. */
export function delayMinutesOf(data: Record<string, unknown>): number | null {
  const wait = waitDurationOf(data);
  return wait.ok ? wait.minutes : null;
}

/** Delay nodes have no default length: a node without one is a mistake, not "one day". */
export const delayDataSchema = zJsonObject()
  .superRefine((d, ctx) => {
    const wait = waitDurationOf(d);
    if (!wait.ok) ctx.addIssue({ code: 'custom', path: [wait.path], message: wait.error });
  })
  .describe(`delay node data: ${WAIT_FORMS_DOC}`);

// ── lookup ──────────────────────────────────────────────────────────────────────────────────

/** The `lookup.<alias>` namespace key from a label: "Open deals!" → open_deals. */
export const slugify = (label: string): string =>
  label
    .toLowerCase()
    .replace(/æ/g, 'ae')
    .replace(/ø/g, 'oe')
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);

const lookupFilter = zObject({
  field: zRequiredText(200),
  operator: zEnum(CONDITION_OPERATORS),
  value: z.unknown().optional(),
});
export const lookupDataSchema = zObject({
  label: zString().max(200).optional(),
  entityType: zEnum(LOOKUP_ENTITY_TYPES),
  customObjectId: ref('custom-object', optId()),
  mode: zEnum(LOOKUP_MODES).default('first'),
  filters: zArray(lookupFilter).max(20).default([]),
  sortField: zString().trim().min(1).max(200).default('createdAt'),
  sortOrder: z
    .union([z.literal(-1), z.literal(1)], { error: () => 'must be -1 (descending) or 1 (ascending)' })
    .default(-1),
  changeDetection: zBoolean().default(false),
  watchedFields: zArray(zString().trim().min(1).max(200)).max(50).default([]),
}).superRefine((d, ctx) => {
  if (d.entityType === 'CustomObjectRecord' && !d.customObjectId)
    ctx.addIssue({
      code: 'custom',
      path: ['customObjectId'],
      message: 'is required when entityType is CustomObjectRecord',
    });
});

// ── ai ──────────────────────────────────────────────────────────────────────────────────────

export const AI_OUTPUT_MODES = ['text', 'json_schema'] as const;
export const REASONING_EFFORTS = ['none', 'low', 'medium', 'high'] as const;

/** The schema as an object (a JSON string is accepted and parsed). */
export function aiSchemaOf(schema: unknown): Record<string, unknown> | null {
  if (typeof schema === 'string') {
    try {
      const parsed: unknown = JSON.parse(schema);
      return isPlainObject(parsed) ? parsed : null;
    } catch {
      return null;
    }
  }
  return isPlainObject(schema) ? schema : null;
}

/**
 * The handle an AI node leaves through when its edges branch (true/false): a JSON output takes
 * its first boolean property; a text output is true when its first word is yes/true/ja.
 */
export function aiBranchOf(output: unknown): 'true' | 'false' {
  if (isPlainObject(output))
    return Object.values(output).find((v) => typeof v === 'boolean') === true ? 'true' : 'false';
  if (typeof output === 'string') {
    const first = /^[\p{L}]+/u.exec(output.trim().toLowerCase())?.[0] ?? '';
    return ['yes', 'true', 'ja', 'y'].includes(first) ? 'true' : 'false';
  }
  return output === true ? 'true' : 'false';
}

export const aiDataSchema = zObject({
  prompt: zRequiredText(20_000),
  outputMode: zEnum(AI_OUTPUT_MODES).default('text'),
  reasoningEffort: zEnum(REASONING_EFFORTS).default('low'),
  schema: z.unknown().optional(),
}).superRefine((d, ctx) => {
  if (d.outputMode !== 'json_schema') return;
  const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['schema'], message });
  if (d.schema === undefined || d.schema === null || d.schema === '')
    return issue('is required with outputMode json_schema');
  const s = aiSchemaOf(d.schema);
  if (!s) return issue('must be a JSON Schema object (or its JSON text)');
  if (s.type !== 'object')
    return issue('must have type "object" (each top-level property becomes {{ai_json.<field>}})');
  if (!isPlainObject(s.properties) || Object.keys(s.properties).length === 0)
    issue('must define at least one property under "properties"');
});

// ── condition ───────────────────────────────────────────────────────────────────────────────

const NO_VALUE: readonly ConditionOperator[] = VALUELESS_OPERATORS;
const NEEDS_VALUE: readonly ConditionOperator[] = [
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'array_contains',
];
const NUMERIC: readonly ConditionOperator[] = [
  'greater_than',
  'less_than',
  'greater_than_or_equal',
  'less_than_or_equal',
];
const COUNTS: readonly ConditionOperator[] = [
  'array_length_equals',
  'array_length_greater',
  'date_within_days',
  'date_in_exactly_days',
];
const DATES: readonly ConditionOperator[] = ['date_before', 'date_after', 'date_equals'];

const isNum = (v: unknown): boolean =>
  (typeof v === 'number' && Number.isFinite(v)) ||
  (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)));
const isDate = (v: unknown): boolean => parseDateInput(v, 'UTC') !== null;

/** Why a condition's value cannot work with its operator (placeholders are checked at run time). */
export function conditionValueProblem(operator: ConditionOperator, value: unknown, dataType?: string): string | null {
  if (NO_VALUE.includes(operator) || hasPlaceholder(value)) return null;
  const scalar = (ok: (v: unknown) => boolean, what: string) => (ok(value) ? null : `must be ${what} for ${operator}`);
  if (NEEDS_VALUE.includes(operator))
    return value === undefined || value === null ? `is required for ${operator}` : null;
  if (NUMERIC.includes(operator))
    return dataType === 'date' ? scalar(isDate, 'an ISO date') : scalar(isNum, 'a number');
  if (COUNTS.includes(operator))
    return scalar(
      (v) => isNum(v) && Number.isInteger(Number(v)) && (operator.startsWith('date_') || Number(v) >= 0),
      operator.startsWith('date_') ? 'an integer number of days' : 'a non-negative integer',
    );
  if (DATES.includes(operator)) return scalar(isDate, 'an ISO date (YYYY-MM-DD or a date-time)');
  if (operator === 'between') {
    const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : null;
    const ok = (v: unknown) =>
      hasPlaceholder(v) || (dataType === 'date' ? isDate(typeof v === 'string' ? v.trim() : v) : isNum(v));
    return parts && parts.length === 2 && parts.every(ok)
      ? null
      : `must be [min, max] or "min,max" (${dataType === 'date' ? 'dates' : 'numbers'}) for between`;
  }
  if (operator === 'matches_regex') {
    if (typeof value !== 'string' || value === '') return 'must be a regular expression for matches_regex';
    const { source, flags } = parseRegexValue(value);
    const res = compileSafeRegex(source, flags);
    return res.ok ? null : res.error;
  }
  return null;
}

/** Why a condition field can never resolve (no namespace, unknown namespace), or null. */
export function fieldProblem(field: string): string | null {
  const expr = field.trim().replace(/^\{\{\s*|\s*\}\}$/g, '');
  const p = parsePlaceholder(expr);
  const problem = pathProblem(p.segments);
  if (problem === 'bare_name') return `needs a namespace, e.g. lead.${p.path || 'status'} (bare names do not resolve)`;
  if (problem === 'unknown_namespace')
    return `unknown namespace "${p.segments[0]}" (known: ${AUTOMATION_NAMESPACES.join(', ')})`;
  return null;
}

const conditionItem = zObject({
  id: zString().max(100).optional(),
  field: zRequiredText(300),
  operator: zEnum(CONDITION_OPERATORS),
  value: z.unknown().optional(),
  dataType: zEnum(CONDITION_DATA_TYPES).optional(),
}).superRefine((c, ctx) => {
  const f = fieldProblem(c.field);
  if (f) ctx.addIssue({ code: 'custom', path: ['field'], message: f });
  const v = conditionValueProblem(c.operator, c.value, c.dataType);
  if (v) ctx.addIssue({ code: 'custom', path: ['value'], message: v });
});

export const conditionDataSchema = zObject({
  label: zString().max(200).optional(),
  conditions: zArray(conditionItem).min(1).max(50),
  logic: zEnum(CONDITION_LOGIC).default('and'),
});
