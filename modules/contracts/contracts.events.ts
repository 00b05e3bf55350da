import { z } from 'zod';
import { defineEvents } from '../../domain/outbox/define-events';

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
});
