import { z } from 'zod';
import { defineEvents } from '../../platform/outbox/define-events';

const contract = z.object({ contractId: z.string(), title: z.string() });
const signer = contract.extend({ signerId: z.string(), signerName: z.string() });

/** The signing envelope's lifecycle (webhooks `contract.*`); `signers` counts the signing parties. */
export const contractEvents = defineEvents({
  contract_sent: contract.extend({ mode: z.string(), signers: z.number() }),
  contract_signed: signer.extend({ order: z.number(), signedAt: z.string() }),
  contract_declined: signer.extend({ reason: z.string().nullable() }),
  contract_completed: contract.extend({
    completedAt: z.string(),
    signers: z.number(),
    documentSha256: z.string().nullish(),
    signedPdfSha256: z.string(),
  }),
  contract_expired: contract.extend({ deadlineAt: z.string().nullable() }),
  contract_voided: contract.extend({ reason: z.string().nullable() }),
  /** A signer's invitation could not be delivered: first failure (retrying) and retries used up (failed). */
  contract_invitation_failed: signer.extend({
    invitationStatus: z.enum(['retrying', 'failed']),
    lastError: z.string(),
    attempts: z.number(),
    nextAttemptAt: z.string().nullable(),
    noneDelivered: z.boolean().describe('no invitation of this contract has been delivered'),
  }),
  /** A signer's name, e-mail or phone corrected after sending (before they opened it): the old link stopped working. */
  contract_signer_corrected: signer.extend({
    fields: z.array(z.enum(['name', 'email', 'phone'])).describe('the fields that changed'),
    reinvited: z.boolean().describe('a new invitation is queued (the signer had been due one)'),
    correctedAt: z.string(),
    documentSha256: z.string().nullable().describe('the document hash after the correction (it covers the signers)'),
  }),
  /** A resend of a signer's invitation was asked for (the envelope workflow sends a fresh link). */
  contract_invitation_resent: signer.extend({ requestedAt: z.string() }),
  /** The expiry of a sent envelope moved later (the workflow's deadline timer moves with it). */
  contract_extended: contract.extend({ previousDeadlineAt: z.string().nullable(), deadlineAt: z.string() }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof contractEvents> {}
}
