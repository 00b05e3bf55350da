import { z } from 'zod';
import { CONTRACT_STATUSES, SIGNATURE_LEVELS, SIGNER_ROLES, SIGNING_MODES } from './contract.entity';
import { MAX_SIGNERS } from './contracts.service';
import { pageParams } from '../../platform/shared/list-query';
import { objectId, requiredText } from '../../platform/shared/schemas';
import { isoDate, refField } from '../../platform/shared/record-fields';
import { ref } from '../../platform/references/refs';

const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { message: `must be one of ${values.join(', ')}` });
const optText = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .optional()
    .transform((v) => (v ? v : null));
const dateOnly = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)')
  .refine((v) => !Number.isNaN(Date.parse(v)), 'must be a valid date')
  .nullable()
  .optional();

export const signerInput = z.strictObject({
  name: requiredText(200),
  email: z.email({ message: 'must be a valid e-mail address' }).max(320),
  phone: z
    .string()
    .trim()
    .max(40, 'must be at most 40 characters')
    .regex(/^\+?[0-9 ()-]{4,40}$/, 'must be a phone number')
    .nullable()
    .optional(),
  title: optText(200),
  role: enumOf(SIGNER_ROLES)
    .default('signer')
    .describe('signer (signs, in list order when sequential) or cc (receives the signed document)'),
});

const money = (max: number) =>
  z
    .number({ message: 'must be a number' })
    .finite()
    .min(-max, `must be at least -${max}`)
    .max(max, `must be at most ${max}`);
export const lineItemInput = z
  .strictObject({
    name: optText(500),
    description: optText(5000),
    quantity: z
      .number({ message: 'must be a number' })
      .finite()
      .min(0, 'must be at least 0')
      .max(1_000_000, 'must be at most 1000000'),
    unitPrice: money(1_000_000_000).describe('decimal amount; stored in integer minor units (2 decimals)'),
    unit: optText(50),
    vatRate: z
      .number({ message: 'must be a number' })
      .min(0, 'must be at least 0')
      .max(100, 'must be at most 100')
      .optional()
      .describe('percent; default 25'),
  })
  .refine((l) => l.name || l.description, { message: 'name or description is required', path: ['name'] });

export const createContractBody = z.strictObject({
  title: requiredText(300),
  templateId: ref('offer-template', refField).optional().describe('offer template id of this workspace'),
  companyRef: ref('company', refField).optional().describe('company id (must exist in the workspace)'),
  personRef: ref('person', refField).optional().describe('person id (must exist in the workspace)'),
  dealRef: ref('deal', refField).optional().describe('deal id (must exist in the workspace)'),
  sourceOfferId: ref('offer', refField).optional().describe('the offer this contract comes from'),
  signers: z
    .array(signerInput)
    .min(1, 'at least one signer is required')
    .max(MAX_SIGNERS, `at most ${MAX_SIGNERS} signers`)
    .describe('in signing order; at least one with role signer'),
  mode: enumOf(SIGNING_MODES)
    .optional()
    .describe('sequential (default): one signer at a time in list order; parallel: all at once'),
  signatureLevel: enumOf(SIGNATURE_LEVELS)
    .optional()
    .describe('standard (default) or eid (national e-ID; needs EID_PROVIDER_URL)'),
  deadlineAt: isoDate.nullable().optional().describe('when the envelope expires (must be in the future)'),
  contract: z
    .strictObject({ startDate: dateOnly, endDate: dateOnly })
    .nullable()
    .optional()
    .describe('{ startDate, endDate } of the agreement'),
  lineItems: z.array(lineItemInput).max(500, 'at most 500 line items').optional(),
});

export const listContractsQuery = z.strictObject({
  ...pageParams(100),
  status: enumOf(CONTRACT_STATUSES).optional(),
});

// Action bodies strip unknown keys (like the other :id actions), so another workspace's id is a 404, not a 400.
export const sendContractBody = z.object({
  channels: z
    .strictObject({ email: z.boolean().optional(), sms: z.boolean().optional() })
    .optional()
    .describe('default { email: true, sms: false }'),
  message: optText(5000).describe('personal message put in the invitations'),
  reminderIntervalHours: z
    .number({ message: 'must be a number' })
    .min(1, 'must be at least 1')
    .max(720, 'must be at most 720')
    .nullable()
    .optional()
    .describe('hours between reminders to signers who have not signed (default 72; null = no reminders)'),
});

export const voidContractBody = z.object({
  reason: optText(1000),
  notifySigners: z
    .boolean()
    .optional()
    .describe('e-mail the invited signers that the request was cancelled (default false)'),
});

export const tokenParams = z.object({ token: z.string().max(200) });
export const signBody = z.strictObject({
  typedName: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
  signatureImage: z
    .string()
    .max(3_000_000, 'image data URL too large (the limit is 2 MB)')
    .optional()
    .describe('data:image/png;base64 URL of a drawn signature, at most 2 MB'),
});
export const declineBody = z.strictObject({ reason: optText(2000) });

// Issue 28. Like the other :id actions, these bodies strip unknown keys (another workspace's id is a 404).
export const signerParams = z.object({ id: objectId, signerId: objectId });
export const correctSignerBody = z
  .object({
    name: signerInput.shape.name.optional(),
    email: signerInput.shape.email.optional(),
    phone: signerInput.shape.phone.describe('null removes the phone'),
  })
  .refine((b) => b.name !== undefined || b.email !== undefined || b.phone !== undefined, {
    message: 'at least one of name, email and phone is required',
    path: ['name'],
  });
export const extendContractBody = z.object({
  expiresAt: isoDate.describe(
    'the new deadline (deadlineAt): in the future, later than the current one, at most 365 days from now',
  ),
});
