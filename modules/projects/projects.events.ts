import { z } from 'zod';
import { changedKeys, defineEvents, fieldChanges, recordEvents, recordView } from '../../platform/outbox/define-events';

const project = z.object({ project: recordView });
const template = z.object({ template: recordView });
const comment = z.object({ comment: recordView });
const clipCard = z.object({ clipCard: recordView });

/** Projects, project templates, task comments, clip cards and time entries (project tasks are `task_*`). */
export const projectEvents = defineEvents({
  ...recordEvents('project', project),
  project_template_created: template,
  project_template_updated: template.extend({ changes: fieldChanges }),
  project_comment_created: comment,
  project_comment_updated: comment.extend({ changes: changedKeys }),
  ...recordEvents('clip_card', clipCard, changedKeys),
  time_entry_created: z.object({ timeEntry: recordView }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof projectEvents> {}
}
