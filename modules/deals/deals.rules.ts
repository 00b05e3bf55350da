import { defineTransitions } from '../../platform/shared/transitions';
import type { DealStatus } from './deal.entity';

/**
 * Deal status by PUT. Open, won and lost move freely while the deal sits in an open stage; a deal
 * in a won or lost stage keeps that status until it is moved to an open stage (409 otherwise).
 */
export const dealStatusTransitions = defineTransitions<DealStatus>({
  resource: 'deal',
  field: 'status',
  states: ['open', 'won', 'lost'],
  transitions: { open: ['won', 'lost'], won: ['open', 'lost'], lost: ['open', 'won'] },
  requires: { won: 'the deal sits in an open stage', lost: 'the deal sits in an open stage' },
  notes: [
    'Entering a won or lost stage (POST /deals/:id/move, or stageId/flowId by PUT) sets that status; entering an open stage reopens the deal unless a status is sent with the move.',
    'won sets wonDate and clears lostDate, lost the reverse, open clears both; wonDate/lostDate may be sent to backdate, only with their own status.',
  ],
});
