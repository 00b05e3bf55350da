import { z } from 'zod';
import { dateTimeView, idView, recordViewFields } from '../../platform/shared/views';
import {
  CONTRACT_STATUSES,
  INVITATION_STATUSES,
  SIGNATURE_LEVELS,
  SIGNER_ROLES,
  SIGNER_STATUSES,
  SIGNING_MODES,
} from './contract.entity';

// Response views of contracts and their signing links (what the serializers return).

const contractStatus = z.enum(CONTRACT_STATUSES);
const signerStatus = z.enum(SIGNER_STATUSES);
const signerRole = z.enum(SIGNER_ROLES);

export const contractLineView = z.object({
  id: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  quantity: z.number(),
  unit: z.string().nullable(),
  unitPrice: z.number().describe('major units'),
  vatRate: z.number().describe('percent'),
  subtotal: z.number(),
  vatAmount: z.number(),
  total: z.number(),
});

export const contractTermView = z.object({ startDate: z.string().nullable(), endDate: z.string().nullable() });

/** A signer's role and progress through the envelope: the contract and its audit trail show the same fields. */
const signerProgressView = {
  role: signerRole,
  status: signerStatus,
  invitedAt: dateTimeView.nullable(),
  viewedAt: dateTimeView.nullable(),
  signedAt: dateTimeView.nullable(),
  declinedAt: dateTimeView.nullable(),
  declineReason: z.string().nullable(),
};

export const contractSignerView = z.object({
  _id: idView,
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  title: z.string().nullable(),
  ...signerProgressView,
  remindersSent: z.number().int(),
  correctedAt: dateTimeView
    .nullable()
    .describe('when name, e-mail or phone was last corrected after sending (the link sent before stopped working)'),
  resendRequestedAt: dateTimeView
    .nullable()
    .describe('the last resend asked for (POST …/resend; at most one per 10 minutes)'),
  order: z.number().int().describe('position in the signing order'),
  invitation: z
    .object({
      status: z
        .enum(INVITATION_STATUSES)
        .nullable()
        .describe(
          'queued (due, not sent yet), sent, retrying (the last attempt failed), failed (retries used up); null until due',
        ),
      lastError: z.string().nullable().describe('why the last attempt failed (retrying, failed)'),
      attempts: z.number().int(),
      nextAttemptAt: dateTimeView.nullable().describe('when the next attempt is due (retrying)'),
    })
    .describe("delivery of the signer's invitation"),
});

export const contractView = z.object({
  ...recordViewFields,
  kind: z.literal('contract'),
  title: z.string(),
  templateId: z.string().nullable(),
  companyRef: z.string().nullable(),
  personRef: z.string().nullable(),
  dealRef: z.string().nullable(),
  sourceOfferId: z.string().nullable(),
  status: contractStatus,
  mode: z.enum(SIGNING_MODES),
  signatureLevel: z.enum(SIGNATURE_LEVELS),
  deadlineAt: dateTimeView.nullable(),
  channels: z.object({ email: z.boolean(), sms: z.boolean() }).nullable().describe('set at send'),
  message: z.string().nullable(),
  documentSha256: z.string().nullable().describe('SHA-256 of the document content, fixed at send'),
  workflowId: z.string().nullable(),
  sentAt: dateTimeView.nullable(),
  completedAt: dateTimeView.nullable(),
  declinedAt: dateTimeView.nullable(),
  expiredAt: dateTimeView.nullable(),
  voidedAt: dateTimeView.nullable(),
  voidReason: z.string().nullable(),
  lastError: z
    .string()
    .nullable()
    .describe('why the envelope did not start, or why invitations could not be delivered (says when none could)'),
  createdBy: idView,
  contract: contractTermView.nullable().describe('{ startDate, endDate } of the agreement'),
  lineItems: z.array(contractLineView),
  subtotal: z.number(),
  vatAmount: z.number(),
  total: z.number(),
  reminderIntervalHours: z.number().nullable(),
  signers: z.array(contractSignerView),
  progress: z.object({ signed: z.number().int(), required: z.number().int() }),
  invitations: z
    .object({
      queued: z.number().int(),
      sent: z.number().int(),
      retrying: z.number().int(),
      failed: z.number().int(),
      noneDelivered: z.boolean().describe('true when invitations were attempted and none could be delivered'),
    })
    .describe("the signers' invitation deliveries"),
});
export type ContractView = z.infer<typeof contractView>;

export const contractAuditTrailView = z.object({
  contractId: idView,
  status: contractStatus,
  documentSha256: z.string().nullable(),
  signedPdfSha256: z.string().nullable(),
  sentAt: dateTimeView.nullable(),
  completedAt: dateTimeView.nullable(),
  signers: z.array(
    z.object({
      _id: idView,
      name: z.string(),
      email: z.string(),
      ...signerProgressView,
      signatureType: z.enum(['typed', 'drawn']).nullable(),
      signatureName: z.string().nullable(),
      ip: z.string().nullable(),
      userAgent: z.string().nullable(),
      remindersSent: z.number().int(),
      correctedAt: dateTimeView.nullable().describe('last correction after sending (null: never corrected)'),
      order: z.number().int(),
    }),
  ),
});
export type ContractAuditTrailView = z.infer<typeof contractAuditTrailView>;

/** The signed content (what the document hash covers). */
export const contractDocumentView = z.object({
  contractId: idView,
  title: z.string(),
  term: contractTermView.nullable(),
  lineItems: z.array(contractLineView),
  subtotal: z.number(),
  vatAmount: z.number(),
  total: z.number(),
  signers: z.array(
    z.object({
      order: z.number().int(),
      name: z.string(),
      email: z.string(),
      title: z.string().nullish().describe('absent only before the signer row was stored'),
      role: signerRole,
    }),
  ),
});
export type ContractDocumentView = z.infer<typeof contractDocumentView>;

/** GET /public/contracts/sign/:token as JSON. */
export const signerDocumentView = z.object({
  document: contractDocumentView,
  documentSha256: z.string().nullable(),
  status: contractStatus,
  deadlineAt: dateTimeView.nullable(),
  signer: z.object({
    name: z.string(),
    role: signerRole,
    status: signerStatus,
    signedAt: dateTimeView.nullable(),
    canSign: z.boolean().describe('a signer whose turn it is and who has not signed or declined'),
  }),
});
export type SignerDocumentView = z.infer<typeof signerDocumentView>;

export const signResultView = z.object({
  status: z.literal('signed'),
  signedAt: dateTimeView,
  replayed: z.boolean().describe('true when this link had signed already (the first signature is kept)'),
});
export type SignResultView = z.infer<typeof signResultView>;

export const declineResultView = z.object({ status: z.literal('declined'), declinedAt: dateTimeView });
export type DeclineResultView = z.infer<typeof declineResultView>;
