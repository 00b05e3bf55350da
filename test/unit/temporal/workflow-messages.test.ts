/**
 * Workflow messages and inputs are typed end to end: each kind declares its input and its signals,
 * updates and queries once, in its `<kind>.messages.ts`; the workflow registers those descriptors and
 * the callers send the same objects through the WorkflowPort (domain/workflow-port.ts), which takes no
 * message names. The `@ts-expect-error` lines below are checked by tsc (`npx tsc --noEmit -p .`, part
 * of npm test): a misspelt message, a name string, a wrong argument or another kind's input must not
 * compile. The names themselves are on the wire (recorded histories, runs in flight) and stay as they are.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExitReason } from '../../../modules/sequences/types';
import type { DecisionResult } from '../../../modules/bookings/approval-types';
import * as bookingMessages from '../../../modules/bookings/booking-approval.messages';
import * as contractMessages from '../../../modules/contracts/contract-envelope.messages';
import * as sequenceMessages from '../../../modules/sequences/sequence-enrollment.messages';
import type { InputOf } from '../../../platform/workflow-kinds';
import { automationExecutionKind } from '../../../modules/automations/automation-execution.kind';
import { automationScheduleTickKind } from '../../../modules/automations/automation-schedule.kind';
import { emailBulkKind } from '../../../modules/email/email-bulk.kind';
import { scheduledSmsKind } from '../../../modules/messaging/sms-scheduled.kind';
import { WORKFLOW_KINDS } from '../../../app/modules';
import { sequenceEnrollmentKind } from '../../../modules/sequences/sequence-enrollment.kind';
import { webhookDeliveryKind } from '../../../modules/webhooks/webhook-delivery.kind';
import { bookingApprovalKind } from '../../../modules/bookings/booking-approval.kind';
import { contractEnvelopeKind } from '../../../modules/contracts/contract-envelope.kind';
import { startForRow, type WorkflowPort } from '../../../platform/workflow-port';
/** The bundle's workflow functions, by type (the bundle entry is generated: temporal/bundle-options.ts). */
type Workflows = typeof import('../../../modules/automations/automation-execution.workflow') &
  typeof import('../../../modules/automations/automation-schedule.workflow') &
  typeof import('../../../modules/messaging/sms-scheduled.workflow') &
  typeof import('../../../modules/webhooks/webhook-delivery.workflow') &
  typeof import('../../../modules/sequences/sequence-enrollment.workflow') &
  typeof import('../../../modules/email/email-bulk.workflow') &
  typeof import('../../../modules/bookings/booking-approval.workflow') &
  typeof import('../../../modules/contracts/contract-envelope.workflow');

/** Each kind with messages, and the module that declares them. */
const MESSAGES: Record<string, Record<string, unknown>> = {
  [bookingApprovalKind.kind]: bookingMessages,
  [contractEnvelopeKind.kind]: contractMessages,
  [sequenceEnrollmentKind.kind]: sequenceMessages,
};

/** `{ export name: '<type> <wire name>' }` of a messages module's descriptors. */
const descriptors = (mod: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(mod)
      .filter((e): e is [string, { type: string; name: string }] => typeof e[1] === 'object' && e[1] !== null)
      .map(([key, d]) => [key, `${d.type} ${d.name}`]),
  );

describe('workflow messages', () => {
  it('keep the names runs in flight were sent (changing one strands them: add a new message instead)', () => {
    expect(descriptors(sequenceMessages)).toEqual({
      pauseUpdate: 'update pause',
      resumeUpdate: 'update resume',
      unenrollUpdate: 'update unenroll',
      commandSignal: 'signal command',
      exitSignal: 'signal exit',
      stateQuery: 'query state',
      waitQuery: 'query wait',
    });
    expect(descriptors(bookingMessages)).toEqual({
      approveUpdate: 'update approve',
      rejectUpdate: 'update reject',
      decideSignal: 'signal decide',
      deadlineMovedSignal: 'signal deadlineMoved',
      closedSignal: 'signal bookingClosed',
    });
    expect(descriptors(contractMessages)).toEqual({
      envelopeChangedSignal: 'signal envelopeChanged',
      envelopeDeadlineQuery: 'query envelopeDeadline',
    });
  });

  it('every signal and update of a replay fixture is declared by its kind', () => {
    let seen = 0;
    for (const kind of WORKFLOW_KINDS) {
      const declared = new Set(Object.values(descriptors(MESSAGES[kind.kind] ?? {})));
      for (const file of kind.replayFixtures) {
        const history = JSON.parse(readFileSync(path.join(__dirname, '../../fixtures', file), 'utf8')) as {
          events: {
            workflowExecutionSignaledEventAttributes?: { signalName: string };
            workflowExecutionUpdateAcceptedEventAttributes?: { acceptedRequest: { input: { name: string } } };
          }[];
        };
        for (const e of history.events) {
          const signal = e.workflowExecutionSignaledEventAttributes?.signalName;
          const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest.input.name;
          if (signal !== undefined) expect(declared).toContain(`signal ${signal}`);
          if (update !== undefined) expect(declared).toContain(`update ${update}`);
          if (signal !== undefined || update !== undefined) seen++;
        }
      }
    }
    // The booking fixture records an `approve` update, the contract fixture an `envelopeChanged` signal.
    expect(seen).toBeGreaterThanOrEqual(2);
  });
});

// ---- checked by tsc only --------------------------------------------------------------------------

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;
type InputOfWorkflow<F extends (...args: never[]) => unknown> = Parameters<F>[0];

/** The registry's input type of each kind is the one its workflow function takes. */
export type KindInputsAreWorkflowInputs = [
  Expect<Equal<InputOf<typeof automationExecutionKind>, InputOfWorkflow<Workflows['automationExecutionWorkflow']>>>,
  Expect<
    Equal<InputOf<typeof automationScheduleTickKind>, InputOfWorkflow<Workflows['automationScheduleTickWorkflow']>>
  >,
  Expect<Equal<InputOf<typeof scheduledSmsKind>, InputOfWorkflow<Workflows['scheduledSmsWorkflow']>>>,
  Expect<Equal<InputOf<typeof webhookDeliveryKind>, InputOfWorkflow<Workflows['webhookDeliveryWorkflow']>>>,
  Expect<Equal<InputOf<typeof sequenceEnrollmentKind>, InputOfWorkflow<Workflows['sequenceEnrollmentWorkflow']>>>,
  Expect<Equal<InputOf<typeof bookingApprovalKind>, InputOfWorkflow<Workflows['bookingApprovalWorkflow']>>>,
  Expect<Equal<InputOf<typeof emailBulkKind>, InputOfWorkflow<Workflows['emailBulkWorkflow']>>>,
  Expect<Equal<InputOf<typeof contractEnvelopeKind>, InputOfWorkflow<Workflows['contractEnvelopeWorkflow']>>>,
];

/** Never called: what the port accepts and refuses, for tsc. */
export function portTypeChecks(port: WorkflowPort, id: string): void {
  const reason: ExitReason = 'unsubscribed';
  void port.signal(id, sequenceMessages.exitSignal, { reason });
  void port.signal(id, contractMessages.envelopeChangedSignal);
  // @ts-expect-error a message is its descriptor, never its name
  void port.signal(id, 'exit', { reason });
  // @ts-expect-error a misspelt message
  void port.signal(id, sequenceMessages.exitSignl, { reason });
  // @ts-expect-error an argument the signal does not take
  void port.signal(id, sequenceMessages.exitSignal, { reason: 'bored' });
  // @ts-expect-error a signal without arguments takes none
  void port.signal(id, bookingMessages.closedSignal, { reason });

  const state: Promise<sequenceMessages.EnrollmentState> = port.query(id, sequenceMessages.stateQuery);
  // @ts-expect-error the query answers the enrollment state
  const notState: Promise<string> = port.query(id, sequenceMessages.stateQuery);
  void state;
  void notState;

  const approve = { id, update: bookingMessages.approveUpdate, signal: bookingMessages.decideSignal, what: 'x' };
  const decided: Promise<DecisionResult> = port.command(id, { ...approve, arg: { userId: id } });
  void decided;
  // @ts-expect-error the update's argument needs the deciding user
  void port.command(id, { ...approve, arg: { notes: 'n' } });
  // @ts-expect-error the durable twin must take the update's argument (another workflow's signal does not)
  void port.command(id, { ...approve, signal: sequenceMessages.exitSignal, arg: { userId: id } });
  // @ts-expect-error an update name string
  void port.command(id, { ...approve, update: 'approve', arg: { userId: id } });
  void port.command(id, {
    id,
    update: sequenceMessages.resumeUpdate,
    signal: sequenceMessages.commandSignal,
    what: 'x',
  });
  void port.command(id, {
    id,
    update: sequenceMessages.pauseUpdate,
    signal: sequenceMessages.commandSignal,
    arg: { durationDays: 2 },
    what: 'x',
  });
  void port.command(id, {
    id,
    update: sequenceMessages.pauseUpdate,
    signal: sequenceMessages.commandSignal,
    // @ts-expect-error pause takes durationDays, a number
    arg: { durationDays: '2' },
    what: 'x',
  });

  const input = { workspaceId: id, contractId: id, deadlineAt: null, reminderIntervalMs: null };
  const meta = { workspaceId: id, contractId: id, mode: 'parallel', signers: 1 };
  void port.start({ kind: contractEnvelopeKind, workspaceId: id, id, input, meta });
  // @ts-expect-error the input of another kind
  void port.start({ kind: contractEnvelopeKind, workspaceId: id, id, input: { workspaceId: id, queueId: id }, meta });
  const opts = { log: undefined as never, retryable: true, what: 'x', markNotStarted: async () => undefined };
  void startForRow(
    port,
    {
      kind: emailBulkKind,
      workspaceId: id,
      id,
      input: { workspaceId: id, queueId: id },
      meta: { workspaceId: id, queueId: id, accountId: id, recipients: 1 },
    },
    opts,
  );
  void startForRow(
    port,
    {
      kind: emailBulkKind,
      workspaceId: id,
      id,
      // @ts-expect-error a field the input does not have
      input: { workspaceId: id, queueId: id, subject: 's' },
      meta: { workspaceId: id, queueId: id, accountId: id, recipients: 1 },
    },
    opts,
  );
}
