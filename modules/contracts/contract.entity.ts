import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export const CONTRACT_STATUSES = ['draft', 'sent', 'accepted', 'declined', 'expired', 'voided'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];
export const SIGNER_STATUSES = ['pending', 'invited', 'viewed', 'signed', 'declined'] as const;
export const INVITATION_STATUSES = ['queued', 'sent', 'retrying', 'failed'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
export type SignerStatus = (typeof SIGNER_STATUSES)[number];
export const SIGNER_ROLES = ['signer', 'cc'] as const;
export type SignerRole = (typeof SIGNER_ROLES)[number];
export const SIGNING_MODES = ['sequential', 'parallel'] as const;
export type SigningMode = (typeof SIGNING_MODES)[number];
export const SIGNATURE_LEVELS = ['standard', 'eid'] as const;
export type SignatureLevel = (typeof SIGNATURE_LEVELS)[number];

/** A priced line; money is kept in integer minor units (øre/cents) so totals never drift. */
export interface ContractLine {
  id: string;
  name: string | null;
  description: string | null;
  quantity: number;
  unit: string | null;
  unitPriceMinor: number;
  vatRate: number;
  subtotalMinor: number;
  vatMinor: number;
  totalMinor: number;
}

export interface ContractTerm {
  startDate: string | null;
  endDate: string | null;
}
export interface ContractChannels {
  email: boolean;
  sms: boolean;
}

export const Contract = defineEntity({
  name: 'Contract',
  tableName: 'contracts',
  indexes: workspaceIndexes('createdAt', 'status'),
  properties: {
    ...tenantProps,
    title: p.string().length(300),
    templateId: p.string().length(24).nullable(),
    companyRef: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    dealRef: p.string().length(24).nullable(),
    sourceOfferId: p.string().length(24).nullable(),
    status: p.string().length(20).$type<ContractStatus>().default('draft'),
    mode: p.string().length(20).$type<SigningMode>().default('sequential'),
    signatureLevel: p.string().length(20).$type<SignatureLevel>().default('standard'),
    deadlineAt: p.datetime().nullable(),
    term: p.json<ContractTerm>().nullable(),
    lineItems: p.json<ContractLine[]>().defaultRaw(`'[]'`),
    subtotalMinor: p.bigint('number').default(0),
    vatMinor: p.bigint('number').default(0),
    totalMinor: p.bigint('number').default(0),
    createdBy: p.string().length(24),
    channels: p.json<ContractChannels>().nullable(),
    message: p.text().nullable(),
    reminderIntervalMs: p.bigint('number').nullable(),
    /** SHA-256 of the document's canonical content, fixed when the envelope is sent. */
    documentSha256: p.string().length(64).nullable(),
    workflowId: p.string().length(120).nullable(),
    sentAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    declinedAt: p.datetime().nullable(),
    expiredAt: p.datetime().nullable(),
    voidedAt: p.datetime().nullable(),
    voidReason: p.text().nullable(),
    notifySigners: p.boolean().default(false),
    /** Why the last send did not start the envelope (workflow engine refused or down). */
    lastError: p.text().nullable(),
    /** Sent, its envelope workflow not started yet: the worker's starter starts it (start-queue.ts). */
    startQueued: p.boolean().default(false),
    startLeaseUntil: p.datetime().nullable(),
  },
});
export type Contract = InferEntity<typeof Contract>;

export const ContractSigner = defineEntity({
  name: 'ContractSigner',
  tableName: 'contract_signers',
  indexes: workspaceIndexes(['contractId', 'position']),
  properties: {
    ...tenantProps,
    contractId: p.string().length(24),
    position: p.integer(),
    name: p.string().length(200),
    email: p.string().length(320),
    phone: p.string().length(40).nullable(),
    title: p.string().length(200).nullable(),
    role: p.string().length(10).$type<SignerRole>(),
    status: p.string().length(10).$type<SignerStatus>().default('pending'),
    /** SHA-256 (hex) of the signer's current link token; the token itself is never stored. */
    tokenHash: p.string().length(64).nullable().unique(),
    tokenIssuedAt: p.datetime().nullable(),
    invitedAt: p.datetime().nullable(),
    lastNotifiedAt: p.datetime().nullable(),
    remindersSent: p.integer().default(0),
    viewedAt: p.datetime().nullable(),
    signedAt: p.datetime().nullable(),
    declinedAt: p.datetime().nullable(),
    declineReason: p.text().nullable(),
    signatureType: p.string().length(10).$type<'typed' | 'drawn'>().nullable(),
    signatureName: p.string().length(200).nullable(),
    signatureImage: p.text().nullable(),
    ip: p.string().length(64).nullable(),
    userAgent: p.string().length(500).nullable(),
    copySentAt: p.datetime().nullable(),
    /** Delivery of the invitation (null until the signer is due one): queued, sent, retrying, failed. */
    invitationStatus: p.string().length(10).$type<InvitationStatus>().nullable(),
    /** Why the last attempt failed (retrying, failed); cleared when it is sent. */
    invitationError: p.text().nullable(),
    invitationAttempts: p.integer().default(0),
    /** When the next attempt is due (retrying). */
    invitationNextAttemptAt: p.datetime().nullable(),
    /** The last resend asked by POST …/signers/:signerId/resend (at most one per 10 minutes); the workflow sends it. */
    resendRequestedAt: p.datetime().nullable(),
    /** The last correction of name, e-mail or phone (PATCH …/signers/:signerId); the old link stopped working then. */
    correctedAt: p.datetime().nullable(),
  },
});
export type ContractSigner = InferEntity<typeof ContractSigner>;

/** The signed PDF of a completed envelope (one per contract). */
export const ContractDocument = defineEntity({
  name: 'ContractDocument',
  tableName: 'contract_documents',
  properties: {
    ...tenantProps,
    contractId: p.string().length(24).unique(),
    pdf: p.blob(),
    pdfSha256: p.string().length(64),
    documentSha256: p.string().length(64),
  },
});
export type ContractDocument = InferEntity<typeof ContractDocument>;
