import { defineTransitions } from '../../platform/shared/transitions';
import type { ContractStatus } from './contract.entity';

/** Contract (envelope) status: draft → sent by POST /send; the envelope workflow and the signers decide the rest. */
export const contractStatusTransitions = defineTransitions<ContractStatus>({
  resource: 'contract',
  field: 'status',
  states: ['draft', 'sent', 'accepted', 'declined', 'expired', 'voided'],
  transitions: {
    draft: ['sent'],
    sent: ['accepted', 'declined', 'expired', 'voided'],
    accepted: [],
    declined: [],
    expired: [],
    voided: [],
  },
  notes: [
    'sent → accepted when every signer (role signer) has signed: the envelope workflow stores the signed PDF and emits contract.completed.',
    'sent → declined when one signer declines; sent → expired when deadlineAt passes; sent → voided by POST /contracts/:id/void.',
    'Signer links work only while the contract is sent (the final-copy link serves the signed PDF once accepted).',
  ],
});
