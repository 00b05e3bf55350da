import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

export const noteEvents = defineEvents({
  note_created: z.object({ note: recordView }),
  note_updated: z.object({ note: recordView, changes: fieldChanges }),
  note_deleted: z.object({ note: recordView }),
});
