/**
 * add_to_sequence: enrolls the trigger's record (or the record of `entityType` in the run's
 * context) through the same enrollment service as the API. Without forceRestart an entity that is
 * already enrolled is skipped (reason already_enrolled); with it, the running enrollment restarts.
 */
import { isId } from '../../../platform/ids';
import type { SequenceEntityType } from './deps';
import { fail, recordIdOf, requireTrigger, type ActionHandler, type RecordKind } from './types';

const TYPE_OF_KIND: Record<RecordKind, SequenceEntityType> = {
  lead: 'Lead',
  person: 'People',
  deal: 'Deal',
  company: 'Company',
};
const KIND_OF_TYPE: Record<SequenceEntityType, RecordKind> = {
  Lead: 'lead',
  People: 'person',
  Deal: 'deal',
  Company: 'company',
};

export const addToSequenceAction: ActionHandler<{
  sequenceId: string;
  entityType: 'trigger' | SequenceEntityType;
  forceRestart: boolean;
}> = {
  // The enrollment commits in its own transaction before its workflow starts; a retry finds it enrolled.
  kind: 'external',
  describe: (c) =>
    `would enroll the ${c.entityType === 'trigger' ? 'trigger record' : c.entityType} in sequence ${c.sequenceId}${c.forceRestart ? ' (restarting a running enrollment)' : ''}`,
  async run(env, c) {
    const enroll = env.deps.sequences ?? fail('add_to_sequence: the sequence engine is not available in this worker');
    if (!isId(c.sequenceId)) fail('add_to_sequence: sequenceId must be a 24-character hex id');
    let entityType: SequenceEntityType;
    let entityId: string;
    if (c.entityType === 'trigger') {
      const t = requireTrigger(env.input.context, 'add_to_sequence');
      entityType = TYPE_OF_KIND[t.kind];
      entityId = t.id;
    } else {
      entityType = c.entityType;
      entityId =
        recordIdOf(env.input.context, KIND_OF_TYPE[c.entityType]) ??
        fail(`add_to_sequence: this run has no ${c.entityType} record`);
    }
    const [r] = await enroll(env.ctx, c.sequenceId, entityType, [entityId], {
      source: 'automation',
      forceRestart: c.forceRestart,
      duplicateMode: c.forceRestart ? 'block_with_restart' : 'block',
    });
    if (!r!.success) {
      if (r!.code === 'already_enrolled')
        return { status: 'skipped', output: { skipped: true, reason: 'already_enrolled', entityType, entityId } };
      fail(`add_to_sequence: ${r!.error}`);
    }
    return { output: { enrollmentId: r!.enrollmentId, action: r!.action, entityType, entityId } };
  },
};
