import { defineResource, loadById } from '../../platform/shared/resource';
import { Sequence, SequenceEnrollment, SequenceOptOut, SequenceStep } from './sequence.entity';
export const sequenceResource = defineResource<Sequence>({
  kind: 'sequence',
  collection: 'sequences',
  entity: Sequence,
  ownedEntities: [SequenceEnrollment, SequenceStep, SequenceOptOut],
  load: loadById(Sequence, 'sequence'),
});
