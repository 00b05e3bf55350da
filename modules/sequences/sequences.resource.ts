import { defineResource, loadById } from '../../platform/shared/resource';
import { Sequence, SequenceEnrollment, SequenceOptOut, SequenceStep } from './sequence.entity';
export const sequenceResource = defineResource<Sequence>({
  kind: 'sequence',
  collection: 'sequences',
  getPath: '/api/v1/sequences/:id',
  entity: Sequence,
  ownedEntities: [SequenceEnrollment, SequenceStep, SequenceOptOut],
  load: loadById(Sequence, 'sequence'),
});
