import type { Ctx } from '../../platform/context';
import type { EventPayload } from '../../platform/outbox/catalog';
import { emit } from '../../platform/outbox/emit';
import type { contractEvents } from './contracts.events';
import type { Contract, ContractSigner } from './contract.entity';

type ContractEventName = keyof typeof contractEvents;

/**
 * Writes one of the envelope's lifecycle events (contracts.events.ts) about contract `c`: the contract is the
 * event's entity and every payload opens with its id and title; `details` is the rest of the payload.
 */
export function emitContractEvent<N extends ContractEventName>(
  ctx: Ctx,
  c: Pick<Contract, '_id' | 'title'>,
  type: N,
  details: Omit<EventPayload<N>, 'contractId' | 'title'>,
): void {
  const payload = { contractId: c._id, title: c.title, ...details } as EventPayload<N>;
  emit<N>(ctx, { type, entityType: 'contract', entityId: c._id, payload });
}

/** The signer a signer event is about (its payload's signerId and signerName). */
export const signerFields = (s: Pick<ContractSigner, '_id' | 'name'>) => ({ signerId: s._id, signerName: s.name });
