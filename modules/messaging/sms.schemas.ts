import { z } from 'zod';
import { normalizePhone } from '../crm-connect';
import { MAX_BULK_RECIPIENTS } from './sms-bulk.service';
import { SCHEDULED_SMS_STATUSES } from './sms-message.entity';
import { MAX_SMS_LENGTH } from './sms.service';
import { boolParam, isoDateParam, listQuery, pageParams } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';
import { ref } from '../../platform/references/refs';

const messageText = z
  .string()
  .min(1, 'is required')
  .max(MAX_SMS_LENGTH * 2, `must be at most ${MAX_SMS_LENGTH} characters`);
const phoneText = z.string().min(1, 'is required').max(40, 'must be at most 40 characters');
const idempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .describe('a retry with the same key sends nothing new and answers the same SMS');

const links = {
  personId: ref('person', objectId).optional(),
  companyId: ref('company', objectId).optional(),
  leadId: ref('lead', objectId).optional(),
  dealId: ref('deal', objectId).optional(),
};

export const sendSmsBody = z.object({
  to: phoneText.describe('E.164, or national with SMS_DEFAULT_COUNTRY_CODE set'),
  message: messageText.describe(`at most ${MAX_SMS_LENGTH} characters`),
  from: z
    .string()
    .max(40)
    .optional()
    .describe('E.164 number or alphanumeric sender id (≤ 11); default SMS_DEFAULT_FROM'),
  ...links,
  idempotencyKey: idempotencyKey.optional(),
});

/** Strict (spec): unknown parameters are 400. */
export const listSmsQuery = listQuery({
  strict: true,
  extra: {
    direction: z.enum(['inbound', 'outbound']).optional(),
    unread: boolParam.optional(),
    starred: boolParam.optional(),
    phoneNumber: z
      .string()
      .max(40)
      .transform((s, c) => {
        const n = normalizePhone(s);
        if (!n) c.addIssue({ code: 'custom', message: 'must be a phone number (optional + or 00, then 4-20 digits)' });
        return n ?? z.NEVER;
      })
      .optional()
      .describe('matched by the crm-connect phone rule'),
    ...links,
  },
});

const READ_ONLY_SMS_FIELDS = [
  'body',
  'message',
  'to',
  'from',
  'status',
  'direction',
  'phoneNumber',
  'providerMessageId',
] as const;
/** Only the flags change; a field of the message itself is refused (400), other keys are ignored. */
export const smsFlagsBody = z
  .looseObject({
    unread: z.boolean({ message: 'must be a boolean' }).optional(),
    starred: z.boolean({ message: 'must be a boolean' }).optional(),
  })
  .superRefine((b, c) => {
    for (const key of READ_ONLY_SMS_FIELDS)
      if (key in b)
        c.addIssue({ code: 'custom', path: [key], message: 'cannot be changed: only unread and starred can' });
  })
  .refine((b) => b.unread !== undefined || b.starred !== undefined, { message: 'give unread and/or starred' })
  .transform((b) => ({ unread: b.unread, starred: b.starred }));

export const threadsQuery = z.strictObject({
  ...pageParams(100),
  unread: boolParam.optional().describe('only threads with (true) or without (false) unread inbound messages'),
});
export const threadQuery = z.strictObject({ ...pageParams(100) });
export const threadParams = z.object({ phoneNumber: z.string().min(1).max(40) });
export const threadBody = z.object({ unread: z.boolean({ message: 'must be a boolean' }) });

const recipient = z.union([
  phoneText,
  z
    .object({
      to: phoneText.optional(),
      phone: phoneText.optional().describe('alias of to'),
      message: messageText.optional(),
      placeholders: z
        .record(z.string().max(100), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]))
        .optional(),
      ...links,
    })
    .refine((r) => r.to !== undefined || r.phone !== undefined, { message: 'to: is required' }),
]);

export const bulkSmsBody = z
  .object({
    message: messageText
      .optional()
      .describe("default text; {{name}} placeholders are filled from each recipient's placeholders"),
    from: z.string().max(40).optional(),
    recipients: z
      .array(recipient)
      .min(1, 'at least one recipient')
      .max(MAX_BULK_RECIPIENTS, `at most ${MAX_BULK_RECIPIENTS} recipients`),
    idempotencyKey: z
      .string()
      .min(1)
      .max(120)
      .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
      .optional(),
  })
  .superRefine((b, ctx) => {
    if (b.message !== undefined) return;
    b.recipients.forEach((r, i) => {
      if (typeof r === 'string' || r.message === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['recipients', i, 'message'],
          message: 'is required (or give a top-level message)',
        });
    });
  })
  .transform((b) => ({
    ...b,
    recipients: b.recipients.map((r) => (typeof r === 'string' ? { to: r } : { ...r, to: (r.to ?? r.phone)! })),
  }));

export const scheduleSmsBody = z.object({
  to: phoneText,
  message: messageText,
  from: z.string().max(40).optional(),
  sendAt: z.string().pipe(isoDateParam).describe('ISO 8601 datetime in the future (≤ 365 days ahead)'),
  ...links,
});

export const scheduledQuery = z.strictObject({
  ...pageParams(100),
  status: z.enum(SCHEDULED_SMS_STATUSES as [string, ...string[]]).optional(),
});

export const templateListQuery = z.object({ ...pageParams(100), category: z.string().max(60).optional() });
const templateFields = {
  name: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
  message: z.string().min(1, 'is required').max(MAX_SMS_LENGTH, `must be at most ${MAX_SMS_LENGTH} characters`),
  category: z
    .string()
    .trim()
    .max(60, 'must be at most 60 characters')
    .nullable()
    .transform((v) => v || null),
};
export const createTemplateBody = z.object({
  name: templateFields.name,
  message: templateFields.message,
  category: templateFields.category.optional(),
});
export const updateTemplateBody = z.object(templateFields).partial();
