import { z } from 'zod';
import { OFFER_STATUSES } from './offer.entity';
import { MAX_LINE_ITEMS, MAX_QUANTITY, MAX_UNIT_PRICE } from './offer-lines';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { ref } from '../../platform/references/refs';
import { recordView } from '../presets';
import { refField } from '../../platform/shared/record-fields';
import { dateTimeView, openObjectView } from '../../platform/shared/views';
import { offerLineView } from './offer-line.views';

export const OFFER_JSON_MAX_BYTES = 64 * 1024;

const decimals = (max: number) => (v: number) => Number(v.toFixed(max)) === v;
export const num = () => z.number({ message: 'must be a number' });
export const jsonObject = (what: string) =>
  z
    .record(z.string(), z.unknown(), { message: `${what} must be a JSON object` })
    .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= OFFER_JSON_MAX_BYTES, {
      message: `must be at most ${OFFER_JSON_MAX_BYTES / 1024} KB of JSON`,
    });

export const vatRateField = num()
  .min(0, 'must be at least 0')
  .max(100, 'must be at most 100')
  .refine(decimals(2), 'must have at most 2 decimals');
export const priceField = num()
  .min(-MAX_UNIT_PRICE, `must be at least -${MAX_UNIT_PRICE}`)
  .max(MAX_UNIT_PRICE, `must be at most ${MAX_UNIT_PRICE}`)
  .refine(decimals(6), 'must have at most 6 decimals');

export const lineItemInput = z
  .object({
    id: z.string().max(24).optional().describe('kept when it is a 24-hex id unique in the list; otherwise generated'),
    name: z.string().trim().max(300, 'must be at most 300 characters').optional(),
    description: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
    quantity: num()
      .gt(0, 'must be greater than 0')
      .max(MAX_QUANTITY, `must be at most ${MAX_QUANTITY}`)
      .refine(decimals(6), 'must have at most 6 decimals')
      .optional()
      .describe('default 1'),
    unitPrice: priceField.describe('major units (e.g. 1249.95); negative for a discount line'),
    unit: z.string().trim().max(50, 'must be at most 50 characters').optional(),
    vatRate: vatRateField
      .optional()
      .describe('percent; default the workspace default (offer-settings defaults.vatRate)'),
    productId: ref('product', objectId).optional(),
  })
  .refine((l) => Boolean(l.name || l.description), { message: 'name or description is required', path: ['name'] });

const validUntil = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(T.*)?$/, 'must be an ISO 8601 date')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a valid date')
  .transform((s) => s.slice(0, 10));

const offerFields = {
  offerTypeId: ref('offer-type', refField).describe('offer type id (pricing rules) of this workspace'),
  templateId: ref('offer-template', refField).describe('offer template id of this workspace'),
  companyRef: ref('company', refField).describe('company id'),
  personRef: ref('person', refField).describe('person id'),
  dealRef: ref('deal', refField).describe('deal id'),
  quoteInput: jsonObject('quoteInput').nullable().describe('{ contact, address, facts, calculatorInputs }'),
  lineItems: z.array(lineItemInput).max(MAX_LINE_ITEMS, `at most ${MAX_LINE_ITEMS} line items`),
  calculatorResult: jsonObject('calculatorResult')
    .nullable()
    .describe('{ lineItems, subtotal, vatAmount, total } as the calculator returned it'),
  validUntil: validUntil.nullable().describe('last day the offer can be accepted (inclusive, UTC)'),
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code')
    .transform((s) => s.toUpperCase())
    .describe('default the workspace default currency'),
};

export const createOfferBody = z.object({ title: requiredText(300) }).extend(z.object(offerFields).partial().shape);
export const updateOfferBody = createOfferBody.partial();
export type OfferWrite = z.infer<typeof updateOfferBody>;

const status = z.enum(OFFER_STATUSES, { message: `must be one of ${OFFER_STATUSES.join(', ')}` });
export const listOffersQuery = z.object({
  ...pageParams(100),
  status: status.optional(),
  companyRef: objectId.optional(),
  personRef: objectId.optional(),
  dealRef: objectId.optional(),
  q: z.string().trim().min(1).max(200).optional().describe('matches title and offer number'),
});

/** `_id` or the public id handed out at send. */
export const offerIdParams = z.object({ id: z.string().regex(/^([0-9a-f]{24}|[A-Za-z0-9_-]{22,40})$/) });

export const sendEmailBody = z.object({
  emailTo: z
    .email({ message: 'must be a valid e-mail address' })
    .max(320)
    .optional()
    .describe("default: the linked person's e-mail"),
  senderAccountId: ref('email-account', objectId)
    .optional()
    .describe('connected mailbox (GET /email-accounts); default the fallback sender'),
  templateId: ref('email-template', objectId)
    .optional()
    .describe('e-mail template; default offer-settings emailSettings'),
});
export const sendSmsBody = z.object({
  phoneTo: z.string().trim().min(3).max(40).optional().describe("default: the linked person's phone"),
});

export { offerLineView, type OfferLineView } from './offer-line.views';

/** What the recipient did on the public link. */
export const offerResponseView = z.object({
  decision: z.enum(['accepted', 'declined']),
  name: z.string().nullable(),
  email: z.string().nullable(),
  comment: z.string().nullable().describe('the comment on accept, the reason on decline'),
  at: dateTimeView,
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
});

export const offerView = z.object({
  ...recordView,
  kind: z.literal('offer'),
  title: z.string(),
  status,
  offerTypeId: z.string().nullable(),
  templateId: z.string().nullable(),
  companyRef: z.string().nullable(),
  personRef: z.string().nullable(),
  dealRef: z.string().nullable(),
  quoteInput: openObjectView.nullable().describe('{ contact, address, facts, calculatorInputs } as given'),
  calculatorResult: openObjectView.nullable().describe('as the calculator returned it'),
  lineItems: z.array(offerLineView),
  currency: z.string(),
  subtotal: z.number(),
  vatAmount: z.number(),
  total: z.number(),
  subtotalMinor: z.number().int(),
  vatMinor: z.number().int(),
  totalMinor: z.number().int(),
  validUntil: z.string().nullable().describe('YYYY-MM-DD, inclusive'),
  offerNumber: z.string().nullable(),
  publicId: z.string().nullable(),
  publicUrl: z.string().nullable(),
  ownerId: z.string(),
  sentAt: dateTimeView.nullable(),
  cancelledAt: dateTimeView.nullable(),
  respondedAt: dateTimeView.nullable(),
  response: offerResponseView.nullable(),
  viewCount: z.number().int(),
  firstViewedAt: dateTimeView.nullable(),
});
export type OfferView = z.infer<typeof offerView>;

// ---- offer settings ----

const text = (max: number) => clearableText(max).optional();
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{3,8}$/, 'must be a hex colour like #1f2937')
  .nullable();
const option = z.object({
  value: requiredText(100),
  label: requiredText(200),
  sortOrder: z.number().int().min(0).max(100_000).optional(),
});
const freeObject = (what: string) => jsonObject(what);

export const offerSettingsPatch = z
  .strictObject({
    companyInfo: freeObject('companyInfo'),
    bankInfo: z.strictObject({
      bankName: text(200),
      registrationNumber: text(20),
      accountNumber: text(40),
      iban: text(40),
      swift: text(20),
    }),
    defaults: z
      .strictObject({
        vatRate: vatRateField,
        currency: z
          .string()
          .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter ISO 4217 code')
          .transform((s) => s.toUpperCase()),
        defaultValidityDays: z
          .number()
          .int('must be an integer')
          .min(1, 'must be at least 1')
          .max(3650, 'must be at most 3650'),
        paymentTerms: text(2000),
        defaultTemplateId: ref('offer-template').nullable(),
        defaultOfferTypeId: ref('offer-type').nullable(),
      })
      .partial(),
    branding: z
      .object({ primaryColor: color, accentColor: color, fontFamily: text(200), logoUrl: text(2000) })
      .partial()
      .catchall(z.unknown())
      .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= OFFER_JSON_MAX_BYTES, 'must be at most 64 KB of JSON'),
    emailSettings: z
      .object({ subject: text(998), body: text(100_000), senderAccountId: ref('email-account').nullable() })
      .partial()
      .catchall(z.unknown()),
    smsSettings: z
      .object({ message: text(1600) })
      .partial()
      .catchall(z.unknown()),
    acceptanceSettings: z
      .strictObject({
        requireName: z.boolean(),
        requireEmail: z.boolean(),
        allowDecline: z.boolean(),
        requireDeclineReason: z.boolean(),
        acceptButtonText: text(100),
        declineButtonText: text(100),
        termsText: text(20_000),
      })
      .partial(),
    trackingSettings: freeObject('trackingSettings'),
    sequenceSettings: freeObject('sequenceSettings'),
    orderConfirmationSettings: freeObject('orderConfirmationSettings'),
    numbering: z
      .strictObject({
        prefix: z
          .string()
          .max(20, 'must be at most 20 characters')
          .regex(/^[^\s<>"'&]*$/, 'must not contain spaces or <>"\'&'),
        nextNumber: z
          .number()
          .int('must be an integer')
          .min(1, 'must be at least 1')
          .max(1_000_000_000_000, 'must be at most 1000000000000'),
      })
      .partial(),
    contractSettings: freeObject('contractSettings'),
    defaultTerms: text(50_000),
    defaultPaymentTerms: text(20_000),
    lineItemUnits: z.array(option).max(100, 'at most 100 units'),
    billingFrequencies: z.array(option).max(50, 'at most 50 billing frequencies'),
    setupCompleted: z.boolean(),
  })
  .partial();

// ---- public link ----

export const publicIdParams = z.object({ publicId: z.string().regex(/^[A-Za-z0-9_-]{22,40}$/) });
export const previewTokenParams = z.object({ token: z.string().min(10).max(300) });
export const acceptBody = z.object({
  name: z.string().trim().max(200, 'must be at most 200 characters').optional(),
  email: z.email({ message: 'must be a valid e-mail address' }).max(320).optional(),
  comment: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
});
export const declineBody = z.object({
  name: z.string().trim().max(200, 'must be at most 200 characters').optional(),
  email: z.email({ message: 'must be a valid e-mail address' }).max(320).optional(),
  reason: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
});

/** What the service writes: the parsed updateOfferBody (create bodies add their required fields). */
export type OfferInput = z.infer<typeof updateOfferBody>;
