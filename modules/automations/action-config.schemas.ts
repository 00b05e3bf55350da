/**
 * `node.data.config` of each action type, with the spec's defaults. The graph validator reports
 * their issues; action activities `parse` a resolved config to get defaults filled in.
 * String fields may contain placeholders; numbers may be a `{{placeholder}}` where noted.
 */
import { z } from 'zod';
import type { ActionType } from './definition.schemas';
import {
  hasPlaceholder,
  zArray,
  zBoolean,
  zEnum,
  zInt,
  zJsonObject,
  zNumber,
  zNumberOrPlaceholder,
  zObject,
  zRequiredText,
  zString,
} from '../../platform/shared/zod-kit';
import type { RecordType } from '../../platform/shared/record-types';
import { ref } from '../../platform/references/refs';

const optText = (max: number) => zString().max(max, `must be at most ${max} characters`).optional();
const reqText = zRequiredText;

/** http(s) URL; placeholders may stand anywhere (a URL that is one placeholder is checked at run time). */
export function isHttpUrl(v: string): boolean {
  const t = v.trim();
  if (t.startsWith('{{')) return true;
  return /^https?:\/\/[^\s/?#]+([/?#]\S*)?$/i.test(t.replace(/\{\{[^{}]*\}\}/g, 'x'));
}
const url = reqText(2048).refine(isHttpUrl, 'must be an http:// or https:// URL');

export const RECIPIENT_FIELDS = [
  'primary',
  'secondary',
  'work',
  'privat',
  'cvr',
  'ai',
  'faktura',
  'support',
  'person',
  'company',
  'priority',
  'any',
  'all',
  'custom',
] as const;
/** Not listed for automations: the sequence send_sms list is used. */
export const PHONE_FIELDS = ['primary', 'mobile', 'work', 'privat', 'cvr', 'direkte', 'all', 'custom'] as const;
/** Not listed for automations: the sequence create_task list is used. */
export const TASK_ACTIVITY_TYPES = ['task', 'call', 'meeting', 'follow_up', 'email', 'deadline', 'reminder'] as const;
export const PRIORITIES = ['low', 'medium', 'high'] as const;
/** relative: dueInDays (+ time) after the trigger; absolute: scheduledAt (ISO or placeholder). */
export const DATE_SCHEDULE_TYPES = ['relative', 'absolute'] as const;
/** find_next free slot, skip creation, or create anyway over the conflict. */
export const CONFLICT_POLICIES = ['find_next', 'skip', 'create_anyway'] as const;
export const RECORD_TYPES = ['lead', 'person', 'company', 'deal', 'custom_object'] as const satisfies readonly (
  RecordType | 'custom_object'
)[];
export const ACCESS_RECORD_TYPES = ['trigger', 'lead', 'person', 'company', 'deal'] as const satisfies readonly (
  RecordType | 'trigger'
)[];
export const SEQUENCE_ENTITY_TYPES = ['trigger', 'Lead', 'People', 'Deal', 'Company'] as const;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

const sendEmail = zObject({
  subject: optText(500),
  body: optText(200_000),
  templateId: ref('email-template', optText(100)),
  emailMode: zEnum(['manual', 'template']).optional(),
  recipientField: zEnum(RECIPIENT_FIELDS).default('primary'),
  recipientType: zEnum(['auto', 'contact', 'company']).default('auto'),
  to: optText(1000),
  senderAccountId: ref('email-account', optText(100)),
}).superRefine((c, ctx) => {
  const template = !!c.templateId?.trim();
  if (!template && !c.subject?.trim())
    ctx.addIssue({ code: 'custom', path: ['subject'], message: 'is required unless templateId is set' });
  if (!template && !c.body?.trim())
    ctx.addIssue({ code: 'custom', path: ['body'], message: 'is required unless templateId is set' });
  if (c.emailMode === 'template' && !template)
    ctx.addIssue({ code: 'custom', path: ['templateId'], message: 'is required with emailMode template' });
  if (c.recipientField === 'custom' && !c.to?.trim())
    ctx.addIssue({ code: 'custom', path: ['to'], message: 'is required when recipientField is custom' });
});

const assignTo = zString().trim().min(1).max(100).default('owner');
const createTask = zObject({
  title: reqText(300),
  description: optText(5000),
  activityType: zEnum(TASK_ACTIVITY_TYPES).default('meeting'),
  priority: zEnum(PRIORITIES).default('medium'),
  dateScheduleType: zEnum(DATE_SCHEDULE_TYPES).default('relative'),
  dueInDays: zInt().min(0).max(365).default(1),
  time: zString().regex(HHMM, 'must be HH:mm').optional(),
  scheduledAt: optText(100),
  durationMinutes: zInt().min(5).max(1440).default(30),
  assignTo,
  assignToPlaceholder: optText(200),
  calendarAccountId: optText(100),
  conflictPolicy: zEnum(CONFLICT_POLICIES).default('find_next'),
}).superRefine((c, ctx) => {
  if (c.dateScheduleType === 'absolute' && !c.scheduledAt?.trim())
    ctx.addIssue({ code: 'custom', path: ['scheduledAt'], message: 'is required when dateScheduleType is absolute' });
  if (c.assignTo === 'placeholder' && !hasPlaceholder(c.assignToPlaceholder)) {
    ctx.addIssue({
      code: 'custom',
      path: ['assignToPlaceholder'],
      message: 'must be a {{placeholder}} when assignTo is placeholder',
    });
  }
});

/** `value` is required; null clears the field. */
const fieldUpdate = zObject({
  id: optText(100),
  fieldKey: reqText(200),
  value: z.unknown(),
  isCustomField: zBoolean().optional(),
  customFieldType: optText(50),
});

const customFieldValue = zObject({ name: reqText(100), value: z.unknown(), type: optText(50) });

const accountingBase = {
  /** Which connected accounting system (the spec withholds their names). */
  system: zString().regex(
    /^[a-z0-9][a-z0-9_-]{0,49}$/,
    'must be a lowercase system identifier such as "my_accounting"',
  ),
};
const mapping = zJsonObject();
const invoiceLine = zObject({
  description: reqText(1000),
  quantity: zNumberOrPlaceholder(zNumber()),
  unitPrice: zNumberOrPlaceholder(zNumber()),
  accountNumber: z.union([zString(), zNumber()]).optional(),
  unit: optText(50),
});

export const ACTION_CONFIG_SCHEMAS: Record<ActionType, z.ZodType> = {
  send_email: sendEmail,
  send_sms: zObject({
    message: reqText(1600),
    phoneField: zEnum(PHONE_FIELDS).default('primary'),
    fromNumber: optText(50),
  }),
  create_task: createTask,
  create_recall: zObject({
    title: reqText(300),
    message: optText(5000),
    phoneField: zEnum(PHONE_FIELDS).default('primary'),
    delayDays: zInt().min(0).max(365).default(0),
    assignTo,
  }),
  create_note: zObject({ noteContent: reqText(50_000) }),
  create_activity: zObject({
    description: reqText(5000),
    activityType: zString().trim().min(1).max(60).default('automation'),
  }),
  update_record: zObject({
    recordType: zEnum(RECORD_TYPES).default('lead'),
    fieldUpdates: zArray(fieldUpdate).min(1).max(100),
  }),
  assign_user: zObject({
    assignmentType: zString().trim().min(1).max(50).default('owner'),
    userId: ref('user', optText(100)),
    groupId: optText(100),
  }).superRefine((c, ctx) => {
    if (!c.userId?.trim() && !c.groupId?.trim())
      ctx.addIssue({ code: 'custom', path: ['userId'], message: 'userId or groupId is required' });
  }),
  set_access: zObject({
    recordType: zEnum(ACCESS_RECORD_TYPES).default('trigger'),
    accessState: zObject({
      owner: ref('user', zString().max(100)).nullable().optional(),
      visibility: optText(50),
      shares: zArray(z.unknown()).max(200).optional(),
    }),
  }),
  move_deal_stage: zObject({
    flowRef: ref('flow', optText(100)),
    stageId: z.union([ref('stage', reqText(100)), zInt()], {
      error: (i) => (i.input === undefined ? 'is required' : 'must be a string or an integer'),
    }),
    dealId: ref('deal', optText(200)),
  }),
  create_lead: zObject({ title: reqText(300), email: optText(320), phone: optText(50), status: optText(100) }),
  create_deal: zObject({
    title: reqText(300),
    value: zNumberOrPlaceholder(zNumber().min(0)).optional(),
    flowRef: ref('flow', optText(100)),
    stageId: z.union([ref('stage', zString().max(100)), zInt()]).optional(),
  }),
  create_contact: zObject({ firstName: reqText(200), lastName: optText(200), email: optText(320) }),
  create_offer: zObject({ templateId: ref('offer-template', optText(100)), title: reqText(300) }),
  create_record: zObject({
    recordType: zEnum(RECORD_TYPES).default('lead'),
    fieldValues: zJsonObject().default({}),
    customFields: zArray(customFieldValue).max(200).default([]),
    customObjectId: ref('custom-object', optText(100)),
  }).superRefine((c, ctx) => {
    if (c.recordType === 'custom_object' && !c.customObjectId?.trim())
      ctx.addIssue({
        code: 'custom',
        path: ['customObjectId'],
        message: 'is required when recordType is custom_object',
      });
  }),
  add_to_sequence: zObject({
    sequenceId: ref('sequence', reqText(100)),
    entityType: zEnum(SEQUENCE_ENTITY_TYPES).default('trigger'),
    forceRestart: zBoolean().default(false),
  }),
  http_request: zObject({
    method: zEnum(HTTP_METHODS).default('GET'),
    url,
    headers: z
      .record(zString().max(200), zString().max(8000), { error: () => 'must be an object of string header values' })
      .optional(),
    body: z.unknown().optional(),
    responseMapping: z
      .record(zString().max(200), zString().max(500), {
        error: () => 'must be an object mapping names to response paths (strings)',
      })
      .optional(),
  }),
  send_webhook: zObject({ url, payload: z.unknown().optional() }),
  add_to_list: zObject({ listId: ref('list', reqText(100)) }),
  remove_from_list: zObject({ listId: ref('list', reqText(100)) }),
  accounting_create_customer: zObject({
    ...accountingBase,
    mapping,
    contactName: optText(300),
    contactCountryKey: zString()
      .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as DK')
      .default('DK'),
  }),
  accounting_update_customer: zObject({ ...accountingBase, mapping }),
  accounting_create_case: zObject({ ...accountingBase, mapping }),
  accounting_create_order_confirmation: zObject({ ...accountingBase, mapping }),
  accounting_create_invoice: zObject({
    ...accountingBase,
    mapping,
    useOfferLines: zBoolean().default(false),
    lines: zArray(invoiceLine).max(500).optional(),
    contactGuid: optText(200),
  }),
  accounting_book_invoice: zObject({ ...accountingBase, invoiceId: reqText(200), mapping: mapping.optional() }),
};

/**
 * Names clients commonly send instead of the ones an action reads (the spec calls these out):
 * when the real field is missing and the alias is present, the error says so.
 */
export const ACTION_FIELD_HINTS: Partial<Record<ActionType, Record<string, string>>> = {
  create_note: { noteContent: 'content' },
  create_task: { title: 'taskTitle', description: 'taskDescription' },
  update_record: { fieldKey: 'fieldPath', fieldUpdates: 'fieldPath' },
  send_sms: { message: 'body' },
};

/** What replaces a deprecated action (for the save-time warning). */
export const DEPRECATED_ACTION_REPLACEMENTS: Record<string, string> = {
  create_lead: 'create_record with recordType lead',
  create_deal: 'create_record with recordType deal',
  create_contact: 'create_record with recordType person',
  create_offer: 'create_record',
  assign_user: 'set_access',
};
