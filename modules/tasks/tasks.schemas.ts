import { z } from 'zod';
import { TASK_PRIORITIES, TASK_STATUSES } from './task.entity';
import { listQuery } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText, tagsField } from '../../platform/shared/schemas';
import { customFieldMap, customObjectSlug, isoDate, refField, userId } from '../../platform/shared/record-fields';
import { customFieldsView, dateTimeView, idView, recordViewFields } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

export const MAX_ASSIGNEES = 50;

const status = z.enum(TASK_STATUSES, { message: `must be one of ${TASK_STATUSES.join(', ')}` });
const priority = z.enum(TASK_PRIORITIES, { message: `must be one of ${TASK_PRIORITIES.join(', ')}` });
const amount = (max: number) =>
  z.number({ message: 'must be a number' }).min(0, 'must be at least 0').max(max, `must be at most ${max}`).nullable();

const parentFields = {
  project: ref('project', refField).describe('project id (parent)'),
  customObjectRecord: ref('custom-object-record', refField).describe(
    'custom object record id (parent; needs customObjectSlug)',
  ),
  customObjectSlug,
  company: ref('company', refField).describe('company id (parent; the field is company, not companyRef)'),
  personRef: ref('person', refField).describe('person id (parent)'),
  leadRef: ref('lead', refField).describe('lead id (parent)'),
  dealRef: ref('deal', refField).describe('deal id (parent)'),
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

const nullableId = idView.nullable();

/** A task as the API shows it (spec: Task). */
export const taskView = z.object({
  ...recordViewFields,
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(TASK_STATUSES),
  stage: z.number().int().describe('task-flow stage id'),
  priority: z.enum(TASK_PRIORITIES),
  assignees: z.array(idView).describe('user ids'),
  owner: idView.describe('user id'),
  deadline: dateTimeView.nullable(),
  tags: z.array(z.string()),
  customFields: customFieldsView,
  estimatedHours: z.number().nullable(),
  taskValue: z.number().nullable(),
  project: nullableId.describe('project id (parent)'),
  customObjectRecord: nullableId.describe('custom object record id (parent)'),
  customObjectSlug: z.string().nullable(),
  company: nullableId.describe('company id (parent)'),
  personRef: nullableId.describe('person id (parent)'),
  leadRef: nullableId.describe('lead id (parent)'),
  dealRef: nullableId.describe('deal id (parent)'),
  completedAt: dateTimeView.nullable().describe('when the task became done (null while open)'),
});
export type TaskView = z.infer<typeof taskView>;

/** `view=summary` rows of the task list. */
export const taskSummaryView = taskView.pick({
  _id: true,
  title: true,
  status: true,
  stage: true,
  priority: true,
  assignees: true,
  owner: true,
  deadline: true,
  updatedAt: true,
});

export const taskStageView = z.object({
  id: z.number().int(),
  title: z.string(),
  order: z.number(),
  status: z.enum(TASK_STATUSES).describe('the status a task in this stage has'),
});
export const taskFlowView = z.object({
  stages: z.array(taskStageView).describe('ordered by order'),
  completedStageId: z.number().int().describe('the stage that means done'),
});
export type TaskFlowView = z.infer<typeof taskFlowView>;
