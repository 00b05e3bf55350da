import { defineResource } from '../../platform/shared/resource';
import { getTask, serializeTask } from './tasks.service';
import { Task } from './task.entity';
import { TaskFlow } from './task-flow.entity';

export const taskResource = defineResource<Task>({
  kind: 'task',
  collection: 'tasks',
  entity: Task,
  ownedEntities: [TaskFlow],
  load: getTask,
  view: serializeTask,
  // Exactly one of these parents (modules/timeline/parents.ts TASK_PARENT_FIELDS).
  parents: {
    project: 'project',
    customObjectRecord: 'custom-object-record',
    company: 'company',
    personRef: 'person',
    leadRef: 'lead',
    dealRef: 'deal',
  },
  automation: { entityType: 'task', namespace: null, lookup: 'Task' },
  search: 'task',
});
