import { z } from 'zod';
import { dateTimeView, idView, openObjectView, recordViewFields } from '../../platform/shared/views';
import { OFFER_STATUSES } from './offer.entity';
import { offerView } from './offers.schemas';

// Response views of offer settings, messaging results, preview links, the public page and templates.

const text = z.string().nullable();
const option = z.object({ value: z.string(), label: z.string(), sortOrder: z.number().int().optional() });

/** The workspace offer-settings document (defaults merged with what was stored). */
export const offerSettingsView = z.object({
  companyInfo: openObjectView.describe('name, address, zip, city, country, cvr, email, phone, website (open object)'),
  bankInfo: z.object({
    bankName: text,
    registrationNumber: text,
    accountNumber: text,
    iban: text,
    swift: text,
  }),
  defaults: z.object({
    vatRate: z.number(),
    currency: z.string(),
    defaultValidityDays: z.number().int(),
    paymentTerms: text,
    defaultTemplateId: text,
    defaultOfferTypeId: text,
  }),
  branding: z
    .object({ primaryColor: text, accentColor: text, fontFamily: text, logoUrl: text })
    .catchall(z.unknown())
    .describe('colours, font and logo; other keys are kept as given'),
  emailSettings: z.object({ subject: text, body: text, senderAccountId: text }).catchall(z.unknown()),
  smsSettings: z.object({ message: text }).catchall(z.unknown()),
  acceptanceSettings: z.object({
    requireName: z.boolean(),
    requireEmail: z.boolean(),
    allowDecline: z.boolean(),
    requireDeclineReason: z.boolean(),
    acceptButtonText: text,
    declineButtonText: text,
    termsText: text,
  }),
  trackingSettings: openObjectView.describe('{ trackViews } and other keys as given'),
  sequenceSettings: openObjectView.describe('{ enabled, sequenceId } and other keys as given'),
  orderConfirmationSettings: openObjectView.describe('{ enabled, subject, body } and other keys as given'),
  numbering: z.object({ prefix: z.string(), nextNumber: z.number().int().describe('the next offer number') }),
  contractSettings: openObjectView,
  defaultTerms: text,
  defaultPaymentTerms: text,
  lineItemUnits: z.array(option),
  billingFrequencies: z.array(option),
  setupCompleted: z.boolean(),
});
export type OfferSettingsView = z.infer<typeof offerSettingsView>;

export const offerEmailResultView = z.object({
  offer: offerView,
  email: z.object({
    _id: idView.describe('the e-mail record'),
    to: z.string(),
    messageId: z.string(),
    accepted: z.array(z.string()),
    rejected: z.array(z.string()),
  }),
});
export type OfferEmailResultView = z.infer<typeof offerEmailResultView>;

export const offerSmsResultView = z.object({
  offer: offerView,
  sms: z.object({
    _id: idView.describe('the SMS record'),
    to: z.string(),
    status: z.literal('sent'),
    providerMessageId: z.string().nullable(),
  }),
});
export type OfferSmsResultView = z.infer<typeof offerSmsResultView>;

export const offerPreviewLinkView = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('public'),
    url: z.string(),
    publicId: z.string(),
    expiresAt: z.null(),
  }),
  z.object({
    kind: z.literal('preview'),
    url: z.string(),
    token: z.string(),
    expiresAt: dateTimeView,
  }),
]);
export type OfferPreviewLinkView = z.infer<typeof offerPreviewLinkView>;

/** The offer as its recipient sees it (the public link, or a draft preview). */
export const publicOfferView = z.object({
  publicId: z.string().nullable().describe('null on a preview'),
  preview: z.boolean(),
  status: z.enum(OFFER_STATUSES),
  offerNumber: z.string().nullable(),
  title: z.string(),
  validUntil: z.string().nullable(),
  canAccept: z.boolean(),
  canDecline: z.boolean(),
  response: z
    .object({ decision: z.enum(['accepted', 'declined']), name: z.string().nullable(), at: dateTimeView })
    .nullable(),
  offer: openObjectView.describe(
    'the snapshot frozen at send (live data on a preview): offerNumber, title, currency, lineItems, totals, customer, seller, template, terms, paymentTerms, acceptance',
  ),
});
export type PublicOffer = z.infer<typeof publicOfferView>;

const templateSummaryFields = {
  ...recordViewFields,
  name: z.string(),
  description: z.string().nullable(),
  isDefault: z.boolean(),
  isActive: z.boolean(),
  defaultValidity: z.number().int().nullable().describe('days'),
};

/** A list row: no pages or elements, their count instead. */
export const offerTemplateSummaryView = z.object({ ...templateSummaryFields, pageCount: z.number().int() });
export type OfferTemplateSummaryView = z.infer<typeof offerTemplateSummaryView>;

export const offerTemplateView = z.object({
  ...templateSummaryFields,
  pages: z.array(z.unknown()).describe('pages with their elements (layout content, open)'),
  headerElements: z.array(z.unknown()),
  footerElements: z.array(z.unknown()),
  branding: openObjectView,
  defaultTerms: z.string().nullable(),
  defaultPaymentTerms: z.string().nullable(),
});
export type OfferTemplateView = z.infer<typeof offerTemplateView>;
