import { defineResource } from '../../platform/shared/resource';
import { getNote, serializeNote } from './notes.service';
import { Note } from './note.entity';

export const noteResource = defineResource<Note>({
  kind: 'note',
  collection: 'notes',
  entity: Note,
  load: getNote,
  view: serializeNote,
  // Exactly one of these parents (modules/timeline/parents.ts NOTE_PARENT_FIELDS).
  parents: {
    company: 'company',
    personRef: 'person',
    leadRef: 'lead',
    dealRef: 'deal',
    customObjectRecord: 'custom-object-record',
  },
});
