import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { emit } from '../../platform/outbox/emit';
import { createLinkedActivity, removeLinkedActivities, syncLinkedActivity, assertRecordLinks } from '../timeline';
import { applyPatch, type Changes } from '../../platform/shared/changes';
import { createRecord, pickDefined } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Call, type CallStatus } from './call.entity';
import { callTimelineRow, serializeCall } from './call-view';
import type { CallInput, CallView } from './calls.schemas';
import type { CallEventName } from './calls.events';
import { getRecord } from '../../platform/shared/record-service';

const FIELDS = [
  'subject',
  'phone',
  'direction',
  'status',
  'duration',
  'startedAt',
  'notes',
  'outcome',
  'companyId',
  'personId',
  'leadId',
  'dealId',
  'ownerId',
  'transcriptText',
  'transcriptSummary',
  'transcriptStatus',
  'conversation',
  'languageCode',
  'recordingUrl',
  'recordingPending',
] as const;

// Automation triggers (second spec document): a call reaching these statuses starts automations.
const STATUS_EVENTS: Partial<Record<CallStatus, CallEventName>> = {
  completed: 'call_completed',
  answered: 'call_answered',
};

function pick(input: CallInput): Partial<Call> {
  return pickDefined<Call>(input as Record<string, unknown>, FIELDS);
}

async function checkLinks(ctx: Ctx, input: CallInput): Promise<void> {
  await assertRecordLinks(ctx, input);
}

/** Call events for the calls payload: the view never holds the recording link. */
function emitCall(ctx: Ctx, type: CallEventName, call: Call, extra: { changes?: Changes } = {}): void {
  emit(ctx, { type, entityType: 'call', entityId: call._id, payload: { call: serializeCall(call), ...extra } });
}

export function getCall(ctx: Ctx, id: string): Promise<Call> {
  return getRecord(ctx, Call, id, 'call');
}

/**
 * Creates the call and its call activity in one transaction. A repeated `externalId` answers the
 * stored call (`created: false`), also when two deliveries race.
 */
export async function createCall(
  ctx: Ctx,
  input: CallInput & { phone: string },
): Promise<{ call: CallView; created: boolean }> {
  if (input.externalId) {
    const existing = await ctx.em.findOne(Call, { externalId: input.externalId });
    if (existing) return { call: serializeCall(existing), created: false };
  }
  await checkLinks(ctx, input);
  const hasTranscript = Boolean(input.transcriptText) || Boolean(input.conversation?.length);
  try {
    return await inTransaction(ctx, async () => {
      const call = createRecord(ctx, Call, {
        direction: 'outbound',
        status: 'completed',
        duration: 0,
        startedAt: new Date(),
        ownerId: ctx.actor.userId,
        transcriptStatus: hasTranscript ? 'completed' : 'none',
        conversation: [],
        recordingPending: false,
        ...pick(input),
        externalId: input.externalId ?? null,
        activityId: null,
      } as Call);
      call.activityId = createLinkedActivity(ctx, { callRef: call._id }, callTimelineRow(call))._id;
      emitCall(ctx, 'call_created', call);
      const statusEvent = STATUS_EVENTS[call.status];
      if (statusEvent) emitCall(ctx, statusEvent, call);
      return { call: serializeCall(call), created: true };
    });
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException) || !input.externalId) throw err;
    ctx.em.clear();
    const existing = await ctx.em.findOneOrFail(Call, { externalId: input.externalId });
    return { call: serializeCall(existing), created: false };
  }
}

export async function updateCall(ctx: Ctx, id: string, input: CallInput): Promise<CallView> {
  const call = await getCall(ctx, id);
  await checkLinks(ctx, input);
  const before = call.status;
  const patch = pick(input);
  // A delivered recording is no longer pending.
  if (input.recordingUrl && input.recordingPending === undefined) patch.recordingPending = false;
  // A transcript that arrives later completes the transcription unless the client says otherwise.
  if (
    (input.transcriptText || input.conversation?.length) &&
    input.transcriptStatus === undefined &&
    call.transcriptStatus !== 'completed'
  ) {
    patch.transcriptStatus = 'completed';
  }
  const changes = applyPatch(call, patch);
  if (!Object.keys(changes).length) return serializeCall(call);
  return inTransaction(ctx, async () => {
    call.updatedAt = new Date();
    call.activityId = await syncLinkedActivity(
      ctx,
      call.activityId ?? null,
      { callRef: call._id },
      callTimelineRow(call),
    );
    // The recording link stays out of events and change lists, like out of reads.
    const { recordingUrl: _r, ...visible } = changes;
    emitCall(ctx, 'call_updated', call, { changes: visible });
    const statusEvent = STATUS_EVENTS[call.status];
    if (statusEvent && call.status !== before) emitCall(ctx, statusEvent, call);
    return serializeCall(call);
  });
}

export async function deleteCall(ctx: Ctx, id: string): Promise<void> {
  const call = await getCall(ctx, id);
  await inTransaction(ctx, async () => {
    await removeLinkedActivities(ctx, { callRef: id });
    ctx.em.remove(call);
    emitCall(ctx, 'call_deleted', call);
  });
}
