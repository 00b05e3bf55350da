import { z } from 'zod';
import { defineEvents } from '../../platform/outbox/define-events';

/** enrollmentEventPayload: the enrollment's identity and status (the enrolled record's namespaces load from it). */
const enrollment = z.object({
  enrollment: z.object({
    _id: z.string(),
    sequenceId: z.string(),
    entityType: z.string(),
    entityId: z.string(),
    status: z.string(),
    exitReason: z.string().optional(),
  }),
});

/** Enrollment events (entity `sequence_enrollment`): from the service, the workflow's activity and exits. */
export const sequenceEvents = defineEvents({
  sequence_enrolled: enrollment,
  sequence_completed: enrollment,
  sequence_exited: enrollment,
  sequence_paused: enrollment,
  sequence_resumed: enrollment,
  sequence_unenrolled: enrollment,
});
export type SequenceEventName = keyof typeof sequenceEvents;

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof sequenceEvents> {}
}
