import { z } from 'zod';
import { changedKeys, defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

const project = z.object({ project: recordView });
const template = z.object({ template: recordView });
const comment = z.object({ comment: recordView });
const clipCard = z.object({ clipCard: recordView });

/** Projects, project templates, task comments, clip cards and time entries (project tasks are `task_*`). */
export const projectEvents = defineEvents({
  project_created: project,
  project_updated: project.extend({ changes: fieldChanges }),
  project_deleted: project,
  project_template_created: template,
  project_template_updated: template.extend({ changes: fieldChanges }),
  project_comment_created: comment,
  project_comment_updated: comment.extend({ changes: changedKeys }),
  clip_card_created: clipCard,
  clip_card_updated: clipCard.extend({ changes: changedKeys }),
  clip_card_deleted: clipCard,
  time_entry_created: z.object({ timeEntry: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof projectEvents> {}
}
