import type { WorkflowPort } from '../../../platform/workflow-port';
import { envelopeWakeSubscriber } from '../envelope-wake';
import { envelopeChangedSignal } from '../contract-envelope.messages';
import type { EventName } from '../../../platform/outbox/catalog';
import type { OutboxEventRecord } from '../../../platform/outbox/subscriber';
import { contractEnvelopeKind } from '../contract-envelope.kind';

const WS = '6b08efbeb5978cbca84069d1';
const ID = '6b08f0ae38139c74e6ec8f81';
const event = (type: EventName, entityType = 'contract'): OutboxEventRecord => ({
  id: '1',
  eventId: '6b08f0ae38139c74e6ec8f99',
  workspaceId: WS,
  type,
  entityType,
  entityId: ID,
  actorUserId: null,
  payload: {},
  occurredAt: new Date(),
  attempts: 1,
});

function port(signal: WorkflowPort['signal']): { port: { workflows: WorkflowPort }; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const workflows = {
    signal: (...args: Parameters<WorkflowPort['signal']>) => {
      calls.push(args);
      return signal(...args);
    },
  } as WorkflowPort;
  return { calls, port: { workflows } };
}

describe('contract-envelope-wake subscriber (the durable twin of the API signal)', () => {
  it('takes signatures, declines, voids, signer corrections, resends and extensions of contracts, nothing else', () => {
    const s = envelopeWakeSubscriber(port(async () => true).port);
    for (const type of [
      'contract_signed',
      'contract_declined',
      'contract_voided',
      'contract_signer_corrected',
      'contract_invitation_resent',
      'contract_extended',
    ] as const)
      expect(s.handles!(event(type))).toBe(true);
    for (const type of ['contract_sent', 'contract_completed', 'contract_expired'] as const)
      expect(s.handles!(event(type))).toBe(false);
    expect(s.handles!(event('contract_signed', 'offer'))).toBe(false);
  });

  it("signals the contract's envelope workflow", async () => {
    const p = port(async () => true);
    await envelopeWakeSubscriber(p.port).handle!(event('contract_signed'));
    expect(p.calls).toEqual([[contractEnvelopeKind.workflowId(WS, ID), envelopeChangedSignal]]);
  });

  it('a finished or not yet started workflow is no failure; an engine outage is (the outbox retries it)', async () => {
    await expect(envelopeWakeSubscriber(port(async () => false).port).handle!(event('contract_voided'))).resolves.toBe(
      undefined,
    );
    const down = Object.assign(new Error('14 UNAVAILABLE: connection refused'), { code: 14 });
    await expect(
      envelopeWakeSubscriber(
        port(async () => {
          throw down;
        }).port,
      ).handle!(event('contract_signed')),
    ).rejects.toBe(down);
  });
});
