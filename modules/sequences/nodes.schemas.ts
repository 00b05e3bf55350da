/**
 * `node.data` of every sequence node type, with the spec's defaults and aliases. Sequence settings
 * live on `node.data`, never under `config`. Parsing yields the normalised data a running
 * enrollment works from (its snapshot); the stored definition keeps what the client sent.
 */
import { z } from 'zod';
import { aiSchemaOf, conditionValueProblem } from '../automations/index.schemas';
import { CONDITION_OPERATORS } from '../automations/index.schemas';
import {
  SEQUENCE_NAMESPACES,
  SEQUENCE_TOP_LEVEL_NAMES,
  parsePlaceholder,
  pathProblem,
} from '../../platform/shared/placeholders.pure';
import {
  isPlainObject,
  zArray,
  zBoolean,
  zEnum,
  zInt,
  zJsonObject,
  zNumber,
  zObject,
  zRequiredText,
  zString,
  type ValidationIssue,
  issuesOf,
} from '../../platform/shared/zod-kit';
import { HHMM_RE } from './send-window.pure';
import { ref } from '../../platform/references/refs';
import { normalizeWait } from './wait';

export const SEQUENCE_NODE_TYPES = [
  'start',
  'send_email',
  'send_sms',
  'wait',
  'create_task',
  'create_recall',
  'update_field',
  'condition',
  'ai_condition',
  'ai_analyzer',
  'set_access',
  'stop',
] as const;
export type SequenceNodeType = (typeof SEQUENCE_NODE_TYPES)[number];
/** Nodes that do something for the entity; toggling on needs at least one. */
export const ACTION_NODE_TYPES: readonly SequenceNodeType[] = [
  'send_email',
  'send_sms',
  'create_task',
  'create_recall',
  'update_field',
  'ai_analyzer',
  'set_access',
];
export const BRANCHING_NODE_TYPES: readonly SequenceNodeType[] = ['condition', 'ai_condition'];

export const RECIPIENT_TYPES = ['contact', 'company', 'auto'] as const;
export const COMPANY_RECIPIENT_TARGETS = ['contact_person', 'company_direct'] as const;
export const CONTACT_SELECTION_MODES = ['first', 'beslutningstagere', 'all', 'byTitle', 'byTag'] as const;
export const EMAIL_RECIPIENT_FIELDS = [
  'primary',
  'work',
  'cvr',
  'privat',
  'faktura',
  'support',
  'ai',
  'all',
  'custom',
] as const;
export const PHONE_FIELDS = ['primary', 'mobile', 'work', 'privat', 'cvr', 'direkte', 'all', 'custom'] as const;
export const RECALL_PHONE_FIELDS = ['primary', 'mobile', 'work', 'custom'] as const;
export const TASK_ACTIVITY_TYPES = ['task', 'call', 'meeting', 'follow_up', 'email', 'deadline', 'reminder'] as const;
export const PRIORITIES = ['low', 'medium', 'high'] as const;
export const MAX_SENDER_ID = 11;

const text = (max: number) => zString().max(max, `must be at most ${max} characters`);
const optText = (max: number) => text(max).nullable().optional();

const aiBlocks = zArray(
  zObject({
    id: zString().regex(/^[\w-]{1,50}$/, 'must be 1-50 letters, digits, _ or -'),
    prompt: zRequiredText(5000),
  }),
)
  .max(10)
  .default([]);

const sendCondition = zObject({
  enabled: zBoolean().default(false),
  field: text(300).optional(),
  operator: zEnum(['equals', 'not_equals'] as const).default('equals'),
  value: z.unknown().optional(),
}).superRefine((c, ctx) => {
  if (c.enabled && !c.field?.trim())
    ctx.addIssue({ code: 'custom', path: ['field'], message: 'is required when sendCondition is enabled' });
});

const contactSelection = (fallbacks: readonly [string, ...string[]]) =>
  zObject({
    mode: zEnum(CONTACT_SELECTION_MODES).default('first'),
    titleFilter: optText(200),
    tagFilter: optText(100),
    fallback: zEnum(fallbacks).default(fallbacks[0]),
  }).superRefine((s, ctx) => {
    if (s.mode === 'byTitle' && !s.titleFilter?.trim())
      ctx.addIssue({ code: 'custom', path: ['titleFilter'], message: 'is required with mode byTitle' });
    if (s.mode === 'byTag' && !s.tagFilter?.trim())
      ctx.addIssue({ code: 'custom', path: ['tagFilter'], message: 'is required with mode byTag' });
  });

const attachments = zArray(
  zObject({ id: text(100), name: text(300), s3Key: optText(1000), workspaceFileId: ref('file', optText(100)) }),
)
  .max(20)
  .default([]);

/** `{{ai:<id>}}` references in `texts` that name no block. */
function aiRefProblems(texts: (string | undefined)[], blocks: { id: string }[]): string[] {
  const ids = new Set(blocks.map((b) => b.id));
  const out: string[] = [];
  for (const t of texts)
    for (const m of (t ?? '').matchAll(/\{\{\s*ai:([^}\s]+)\s*\}\}/g)) if (!ids.has(m[1]!)) out.push(m[1]!);
  return out;
}

const sendEmail = zObject({
  label: optText(200),
  subject: text(998).optional(),
  body: text(500_000).optional(),
  aiBlocks,
  attachments,
  templateId: ref('email-template', optText(100)),
  emailMode: zEnum(['manual', 'template'] as const).default('manual'),
  recipientType: zEnum(RECIPIENT_TYPES).default('contact'),
  companyRecipientTarget: zEnum(COMPANY_RECIPIENT_TARGETS).default('contact_person'),
  companyContactSelection: contactSelection(['company_email', 'skip']).default({
    mode: 'first',
    fallback: 'company_email',
  }),
  recipientField: zEnum(EMAIL_RECIPIENT_FIELDS).default('primary'),
  customRecipient: optText(1000),
  senderType: zEnum(['fixed', 'owner'] as const).optional(),
  senderAccountId: ref('email-account', optText(100)),
  ignoreBusinessHours: zBoolean().default(false),
  sendCondition: sendCondition.optional(),
  unsubscribeLinkEnabled: zBoolean().default(false),
  unsubscribeLinkPreset: optText(100),
}).superRefine((d, ctx) => {
  const template = d.emailMode === 'template' || !!d.templateId;
  if (d.emailMode === 'template' && !d.templateId)
    ctx.addIssue({ code: 'custom', path: ['templateId'], message: 'is required with emailMode template' });
  if (!template) {
    if (!d.subject?.trim())
      ctx.addIssue({ code: 'custom', path: ['subject'], message: 'is required unless a template is used' });
    if (!d.body?.trim())
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'is required unless a template is used' });
  }
  if (d.recipientField === 'custom' && !d.customRecipient?.trim())
    ctx.addIssue({ code: 'custom', path: ['customRecipient'], message: 'is required with recipientField custom' });
  for (const id of aiRefProblems([d.subject, d.body], d.aiBlocks))
    ctx.addIssue({ code: 'custom', path: ['body'], message: `{{ai:${id}}} names no entry of aiBlocks` });
});

const sendSms = zObject({
  label: optText(200),
  message: text(1600).optional(),
  aiBlocks,
  recipientType: zEnum(RECIPIENT_TYPES).default('contact'),
  companyRecipientTarget: zEnum(COMPANY_RECIPIENT_TARGETS).default('contact_person'),
  companyContactSelection: contactSelection(['company_phone', 'skip']).default({
    mode: 'first',
    fallback: 'company_phone',
  }),
  phoneField: zEnum(PHONE_FIELDS).default('primary'),
  customPhone: optText(50),
  smsMode: zEnum(['manual', 'template'] as const).default('manual'),
  templateId: ref('sms-template', optText(100)),
  ignoreBusinessHours: zBoolean().default(false),
  sendCondition: sendCondition.optional(),
  senderType: zEnum(['fixed', 'owner', 'alphanumeric'] as const).default('fixed'),
  fromNumber: optText(50),
  senderId: text(MAX_SENDER_ID)
    .regex(/^[A-Za-z0-9 ]*$/, 'must be letters, digits and spaces')
    .nullable()
    .optional(),
}).superRefine((d, ctx) => {
  // As for e-mail: a templateId alone is template mode (the SMS template's text is sent).
  if (d.smsMode === 'template' && !d.templateId)
    ctx.addIssue({ code: 'custom', path: ['templateId'], message: 'is required with smsMode template' });
  if (d.smsMode !== 'template' && !d.templateId && !d.message?.trim())
    ctx.addIssue({ code: 'custom', path: ['message'], message: 'is required unless an SMS template is used' });
  if (d.senderType === 'alphanumeric' && !d.senderId?.trim())
    ctx.addIssue({
      code: 'custom',
      path: ['senderId'],
      message: `is required with senderType alphanumeric (at most ${MAX_SENDER_ID} characters)`,
    });
  if (d.phoneField === 'custom' && !d.customPhone?.trim())
    ctx.addIssue({ code: 'custom', path: ['customPhone'], message: 'is required with phoneField custom' });
  for (const id of aiRefProblems([d.message], d.aiBlocks))
    ctx.addIssue({ code: 'custom', path: ['message'], message: `{{ai:${id}}} names no entry of aiBlocks` });
});

/** The alias family is read by normalizeWait; the normalised amount/unit/ms are added. */
const wait = zJsonObject().transform((d, ctx) => {
  const r = normalizeWait(d);
  if (!r.ok) {
    ctx.addIssue({ code: 'custom', path: [r.path], message: r.error });
    return z.NEVER;
  }
  return {
    label: typeof d.label === 'string' ? d.label : undefined,
    delayAmount: r.wait.amount,
    delayUnit: r.wait.unit,
    ms: r.wait.ms,
  };
});

const createTask = zJsonObject().transform((d, ctx) => {
  // taskTitle is the field; title is the legacy alias.
  const res = zObject({
    taskTitle: zRequiredText(500),
    taskDescription: optText(10_000),
    activityType: zEnum(TASK_ACTIVITY_TYPES).default('task'),
    priority: zEnum(PRIORITIES).default('medium'),
    dueInDays: zInt().min(0).max(3650).default(1),
    assignTo: zEnum(['owner', 'creator'] as const).default('owner'),
  }).safeParse({ ...d, taskTitle: d.taskTitle ?? d.title });
  if (!res.success) {
    for (const iss of res.error.issues)
      ctx.addIssue({ code: 'custom', path: iss.path as PropertyKey[], message: iss.message });
    return z.NEVER;
  }
  // A stored 0 means "tomorrow" in the product this API replaces.
  return { ...res.data, dueInDays: res.data.dueInDays === 0 ? 1 : res.data.dueInDays };
});

const createRecall = zObject({
  title: zRequiredText(500),
  message: optText(10_000),
  phoneField: zEnum(RECALL_PHONE_FIELDS).default('primary'),
  customPhone: optText(50),
  recipientType: zEnum(RECIPIENT_TYPES).default('auto'),
  delayDays: zInt().min(0).max(3650).default(0),
  callTime: zString().regex(HHMM_RE, 'must be HH:mm').nullable().optional(),
  assignTo: zEnum(['owner', 'creator'] as const).default('owner'),
});

/** The entity fields update_field may write (by namespace of the enrolled record). */
const updateField = zObject({
  label: optText(200),
  fieldPath: zRequiredText(200).refine(
    (p) => /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*){0,2}$/.test(p),
    'must be a field name or path such as status or customFields.stage',
  ),
  value: z.unknown(),
}).superRefine((d, ctx) => {
  if (d.value === undefined) ctx.addIssue({ code: 'custom', path: ['value'], message: 'is required' });
});

/** Why a sequence condition field can never resolve, or null. */
export function sequenceFieldProblem(field: string): string | null {
  const p = parsePlaceholder(field.trim().replace(/^\{\{\s*|\s*\}\}$/g, ''));
  const problem = pathProblem(p.segments, { namespaces: SEQUENCE_NAMESPACES, topLevelNames: SEQUENCE_TOP_LEVEL_NAMES });
  if (problem === 'bare_name') return `needs a namespace, e.g. lead.${p.path || 'score'} (bare names do not resolve)`;
  if (problem === 'unknown_namespace')
    return `unknown namespace "${p.segments[0]}" (known: ${SEQUENCE_NAMESPACES.join(', ')})`;
  return null;
}

const condition = zObject({
  label: optText(200),
  field: zRequiredText(300),
  operator: zEnum(CONDITION_OPERATORS).default('is_true'),
  value: z.unknown().optional(),
}).superRefine((d, ctx) => {
  const f = sequenceFieldProblem(d.field);
  if (f) ctx.addIssue({ code: 'custom', path: ['field'], message: f });
  const v = conditionValueProblem(d.operator, d.value);
  if (v) ctx.addIssue({ code: 'custom', path: ['value'], message: v });
});

const aiCondition = zObject({
  label: optText(200),
  prompt: zRequiredText(20_000),
  confidenceThreshold: zNumber().min(0).max(1).default(0.7),
  useKnowledgeBase: zBoolean().default(false),
});

const aiAnalyzer = zObject({
  label: optText(200),
  prompt: zRequiredText(20_000),
  outputMode: zEnum(['text', 'json_schema'] as const).default('json_schema'),
  reasoningEffort: zEnum(['none', 'low', 'medium', 'high'] as const).default('low'),
  schema: z.unknown().optional(),
}).superRefine((d, ctx) => {
  if (d.outputMode !== 'json_schema') return;
  const s = aiSchemaOf(d.schema);
  if (!s || s.type !== 'object' || !isPlainObject(s.properties) || !Object.keys(s.properties).length) {
    ctx.addIssue({
      code: 'custom',
      path: ['schema'],
      message: 'is required with outputMode json_schema: a JSON Schema object with at least one property',
    });
  }
});

const setAccess = zObject({
  recordType: zEnum(['trigger'] as const).default('trigger'),
  accessState: zObject({
    owner: ref('user', zString().regex(/^[0-9a-f]{24}$/, 'must be a user id'))
      .nullable()
      .optional(),
    visibility: zEnum(['private', 'workspace', 'team'] as const).optional(),
    shares: zArray(z.unknown()).max(100).optional(),
  }),
});

const free = zObject({ label: optText(200) });

export const NODE_DATA_SCHEMAS: Record<SequenceNodeType, z.ZodType> = {
  start: free,
  stop: free,
  send_email: sendEmail,
  send_sms: sendSms,
  wait,
  create_task: createTask,
  create_recall: createRecall,
  update_field: updateField,
  condition,
  ai_condition: aiCondition,
  ai_analyzer: aiAnalyzer,
  set_access: setAccess,
};

/** Issues of one node's data under `base` (e.g. `nodes[2].data`). */
export function nodeDataIssues(type: SequenceNodeType, data: unknown, base: string): ValidationIssue[] {
  if (isPlainObject(data) && data.config !== undefined) {
    return [{ path: `${base}.config`, error: 'sequence step settings live on node.data, not under config' }];
  }
  return issuesOf(NODE_DATA_SCHEMAS[type], data ?? {}, base);
}

/** The normalised data (defaults, aliases resolved) of a valid node. */
export function normalizeNodeData(type: SequenceNodeType, data: unknown): Record<string, unknown> {
  return NODE_DATA_SCHEMAS[type].parse(data ?? {}) as Record<string, unknown>;
}
