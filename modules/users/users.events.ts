import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

export const userEvents = defineEvents({
  user_updated: z.object({ user: recordView, changes: fieldChanges }),
});
