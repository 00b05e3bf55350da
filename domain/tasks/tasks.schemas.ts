import { z } from 'zod';
import { TASK_PRIORITIES, TASK_STATUSES } from './task.entity';
import { listQuery } from '../shared/list-query';
import { clearableText, objectId, requiredText, tagsField } from '../shared/schemas';
import { customFieldMap, customObjectSlug, isoDate, refField, userId } from '../shared/record-fields';

export const MAX_ASSIGNEES = 50;

const status = z.enum(TASK_STATUSES, { message: `must be one of ${TASK_STATUSES.join(', ')}` });
const priority = z.enum(TASK_PRIORITIES, { message: `must be one of ${TASK_PRIORITIES.join(', ')}` });
const amount = (max: number) =>
  z.number({ message: 'must be a number' }).min(0, 'must be at least 0').max(max, `must be at most ${max}`).nullable();

const parentFields = {
  project: refField.describe('project id (parent)'),
  customObjectRecord: refField.describe('custom object record id (parent; needs customObjectSlug)'),
  customObjectSlug,
  company: refField.describe('company id (parent; the field is company, not companyRef)'),
  personRef: refField.describe('person id (parent)'),
  leadRef: refField.describe('lead id (parent)'),
  dealRef: refField.describe('deal id (parent)'),
};

const taskFields = {
  description: clearableText(50_000),
  status: status.describe('to_do, in_progress, blocked, done; ignored when stage is sent'),
  stage: z
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(1, 'must be a task-flow stage id')
    .describe('task-flow stage id (GET /task-flow); wins over status'),
  priority,
  assignees: z
    .array(userId)
    .max(MAX_ASSIGNEES, `at most ${MAX_ASSIGNEES} assignees`)
    .describe('user ids; default: the API caller'),
  owner: userId.describe('user id; default: the API caller'),
  deadline: isoDate.nullable().describe('ISO date or datetime'),
  tags: tagsField,
  customFields: customFieldMap.describe('object; on update merged partially (null removes a key)'),
  estimatedHours: amount(100_000),
  taskValue: amount(1_000_000_000_000),
  ...parentFields,
};

/** Exactly one parent is checked by the domain (zero or two parents → 400). */
export const createTaskBody = z.object({ title: requiredText(500) }).extend(z.object(taskFields).partial().shape);
export const updateTaskBody = createTaskBody.partial();

export const listTasksQuery = listQuery({
  extra: {
    status: status.optional(),
    priority: priority.optional(),
    ownerId: objectId.optional().describe('owner user id'),
    owner: objectId.optional().describe('alias of ownerId'),
    assignee: objectId.optional().describe('tasks whose assignees include this user id'),
    project: objectId.optional(),
    company: objectId.optional(),
    personRef: objectId.optional(),
    leadRef: objectId.optional(),
    dealRef: objectId.optional(),
    q: z.string().trim().max(200).optional().describe('case-insensitive match on title and description'),
  },
}).transform(({ owner, ...q }) => ({ ...q, ownerId: q.ownerId ?? owner }));

/** What the service writes: the parsed updateTaskBody (create bodies add their required fields). */
export type TaskInput = z.infer<typeof updateTaskBody>;
