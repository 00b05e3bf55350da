import { validation } from '../../platform/errors';
import type { DealStatus } from './deal.entity';
import { dealStatusTransitions } from './deals.rules';
import type { StageType } from './flow.entity';

export interface StatusState {
  status: DealStatus;
  wonDate: Date | null;
  lostDate: Date | null;
}

export interface StatusChange {
  current: StatusState;
  /** Type of the stage the deal is in now (null for a new deal). */
  currentStageType: StageType | null;
  /** Type of the stage the deal goes to, when the stage changes (always set on create). */
  nextStageType?: StageType;
  status?: DealStatus;
  wonDate?: Date;
  lostDate?: Date;
  now: Date;
}

/**
 * Deal status rules (pure). A stage typed won/lost decides the status when the deal enters it;
 * entering an open stage reopens unless a status is sent with the move. Without a stage change a
 * sent status applies, except that a deal sitting in a won/lost stage cannot take another status
 * (409): the stage would then contradict it (the table is in deals.rules.ts). Won sets wonDate
 * and clears lostDate, lost the reverse, open clears both; a date may be sent to backdate, only
 * with its own status.
 */
export function nextStatus(input: StatusChange): StatusState {
  const stageChanged = input.nextStageType !== undefined;
  const stageType = input.nextStageType ?? input.currentStageType ?? 'open';
  let status: DealStatus;
  if (stageChanged && stageType !== 'open') {
    if (input.status !== undefined && input.status !== stageType) {
      throw validation(`status: the target stage is a ${stageType} stage, so the deal cannot be ${input.status}`);
    }
    status = stageType;
  } else if (input.status !== undefined) {
    if (!stageChanged) {
      // In a won/lost stage the stage holds the status (they agree); elsewhere the deal's own status is the state.
      const from = stageType !== 'open' ? stageType : input.current.status;
      dealStatusTransitions.assert(from, input.status, {
        requirementMet: stageType === 'open',
        message: `status: the deal is ${from} in a ${stageType} stage; move it to an open stage (POST /deals/:id/move) to make it ${input.status}`,
      });
    }
    status = input.status;
  } else {
    status = stageChanged ? 'open' : input.current.status;
  }
  if (input.wonDate && status !== 'won') throw validation('wonDate: can only be set on a won deal');
  if (input.lostDate && status !== 'lost') throw validation('lostDate: can only be set on a lost deal');
  const { current, now } = input;
  if (status === 'won')
    return {
      status,
      wonDate: input.wonDate ?? (current.status === 'won' ? (current.wonDate ?? now) : now),
      lostDate: null,
    };
  if (status === 'lost')
    return {
      status,
      lostDate: input.lostDate ?? (current.status === 'lost' ? (current.lostDate ?? now) : now),
      wonDate: null,
    };
  return { status, wonDate: null, lostDate: null };
}

/** The stage a deal enters when only its flow is given: the first open stage, else the first stage. */
export function firstStage<S extends { type: StageType; order: number }>(stages: readonly S[]): S | undefined {
  const sorted = [...stages].sort((a, b) => a.order - b.order);
  return sorted.find((s) => s.type === 'open') ?? sorted[0];
}
