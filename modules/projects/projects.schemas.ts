import { z } from 'zod';
import { COMMENT_VISIBILITIES, PROJECT_PRIORITIES, PROJECT_STATUSES } from './project.entity';
import { MAX_COMMENT_CHARS } from './project-rules';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText, tagsField } from '../../platform/shared/schemas';
import { createTaskBody, TASK_PRIORITIES, TASK_STATUSES } from '../tasks';
import { customFieldMap, isoDate, refField, userId } from '../../platform/shared/record-fields';
import { customFieldsView, dateTimeView, idView, openObjectView, recordViewFields } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';
import { timeEntryDetails, timeEntryHours, timeEntryMinutes, timeEntryViewFields } from './time-entry-fields';

const status = z.enum(PROJECT_STATUSES, { message: `must be one of ${PROJECT_STATUSES.join(', ')}` });
const priority = z.enum(PROJECT_PRIORITIES, { message: `must be one of ${PROJECT_PRIORITIES.join(', ')}` });
const amount = (max: number) =>
  z.number({ message: 'must be a number' }).min(0, 'must be at least 0').max(max, `must be at most ${max}`).nullable();
const stageId = z
  .number({ message: 'must be a number' })
  .int('must be an integer')
  .min(1, 'must be a project stage id');

const projectFields = {
  description: clearableText(50_000),
  status: status.describe(PROJECT_STATUSES.join(', ') + '; default active'),
  priority: priority.describe('default medium'),
  owner: userId.describe('user id; default: the API caller'),
  tags: tagsField,
  customFields: customFieldMap.describe(
    'project custom fields (GET /project-custom-fields); on update merged partially',
  ),
  company: ref('company', refField).describe('company id'),
  personRef: ref('person', refField).describe('person id'),
  dealRef: ref('deal', refField).describe('deal id'),
  startDate: isoDate.nullable(),
  endDate: isoDate.nullable(),
  budget: z
    .strictObject({ hours: amount(10_000_000), amount: amount(1_000_000_000_000), hourlyRate: amount(1_000_000) })
    .partial()
    .nullable()
    .describe('{ hours, amount, hourlyRate }; hourlyRate prices billable hours against amount in stats'),
  stage: stageId.describe('project stage id (1 Planning, 2 In progress, 3 Review, 4 Completed)'),
  minTimeEntryWords: z
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(0)
    .max(1000)
    .nullable()
    .describe('time entries need a description with at least this many words'),
};

export const createProjectBody = z.object({ title: requiredText(300) }).extend(z.object(projectFields).partial().shape);
export const updateProjectBody = createProjectBody.partial();

export const listProjectsQuery = z.object({
  ...pageParams(100),
  status: status.optional(),
  owner: objectId.optional().describe('owner user id'),
  company: objectId.optional(),
  q: z.string().trim().max(200).optional().describe('case-insensitive match on title and description'),
});

// Any stageId shape passes here so an unknown project answers 404 first; the domain answers 400 for an unknown stage.
export const moveProjectBody = z.object({
  stageId: z.union([z.number(), z.string().max(50)], { message: 'must be a project stage id (number)' }),
});

export const taskIdParams = z.object({ taskId: objectId });
export const commentParams = z.object({ taskId: objectId, commentId: objectId });
export const pageQuery = z.object(pageParams(100));

const projectTaskExtras = {
  startDate: isoDate.nullable(),
  taskType: clearableText(100),
  billable: z.boolean({ message: 'must be a boolean' }),
  order: z.number({ message: 'must be a number' }).min(-1e9).max(1e9).nullable(),
};
const {
  project: _p,
  customObjectRecord: _r,
  customObjectSlug: _s,
  company: _c,
  personRef: _pr,
  leadRef: _l,
  dealRef: _d,
  ...taskShape
} = createTaskBody.shape;
/** A project task's parent is its project (from the path): parent fields are dropped. */
export const createProjectTaskBody = z.object({ ...taskShape, ...z.object(projectTaskExtras).partial().shape });
export const updateProjectTaskBody = createProjectTaskBody.partial();

const visibility = z.enum(COMMENT_VISIBILITIES, { message: `must be one of ${COMMENT_VISIBILITIES.join(', ')}` });
// The 5,000-character limit applies after HTML is stripped (domain); the raw bound only stops abuse.
const content = z
  .string({ message: 'must be a string' })
  .max(100_000, 'must be at most 100000 characters')
  .describe(`HTML stripped; at most ${MAX_COMMENT_CHARS} characters after stripping`);
// content is required on create; the domain checks it after the task lookup, so an unknown task answers 404 first.
export const createCommentBody = z.object({
  content: content.optional(),
  internal: z.boolean({ message: 'must be a boolean' }).optional(),
  visibility: visibility.optional().describe('customer (default) or internal; must agree with internal'),
});
export const updateCommentBody = createCommentBody;

export const createTimeEntryBody = z.object({
  hours: timeEntryHours.describe('greater than 0 together with minutes'),
  minutes: timeEntryMinutes,
  taskId: ref('project-task', refField).optional().describe('a task of this project'),
  ...timeEntryDetails,
});
export const listTimeEntriesQuery = z.object({ ...pageParams(100), taskId: objectId.optional() });

/** What the service writes: the parsed updateProjectBody (create bodies add their required fields). */
export type ProjectInput = z.infer<typeof updateProjectBody>;

/** A time entry as the services take it: the parsed create body. */
export type TimeEntryInput = z.infer<typeof createTimeEntryBody>;

/** A comment as the services take it (create and update share the body). */
export type CommentInput = z.infer<typeof createCommentBody>;

// ---- Views (response schemas) ----

const budgetNumber = z.number().nullable();
export const projectBudgetView = z
  .object({ hours: budgetNumber, amount: budgetNumber, hourlyRate: budgetNumber })
  .describe('hours and/or an amount; hourlyRate prices billable hours against the amount');
export const projectLineView = z
  .object({
    title: z.string(),
    description: z.string().nullable(),
    quantity: z.number(),
    unitPrice: z.number(),
    unit: z.string().nullable(),
    discount: z.number().describe('percent'),
    total: z.number().describe('quantity × unitPrice less the discount'),
    productId: z.string().nullable(),
  })
  .describe('an offer line carried into the project (POST /projects/from-template)');
export const projectMilestoneView = z.object({
  title: z.string(),
  description: z.string().nullable(),
  dueDate: z.string().nullable().describe('ISO 8601 date-time (creation + dueInDays of the template)'),
});

export const projectView = z.object({
  ...recordViewFields,
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(PROJECT_STATUSES),
  priority: z.enum(PROJECT_PRIORITIES),
  owner: idView.describe('user id'),
  tags: z.array(z.string()),
  customFields: customFieldsView,
  company: idView.nullable(),
  personRef: idView.nullable(),
  dealRef: idView.nullable(),
  startDate: dateTimeView.nullable(),
  endDate: dateTimeView.nullable(),
  budget: projectBudgetView.nullable(),
  stage: z.number().int().describe('project stage id (1 Planning, 2 In progress, 3 Review, 4 Completed)'),
  minTimeEntryWords: z.number().int().nullable(),
  templateRef: idView.nullable().describe('the template the project was made from'),
  offerRef: z.string().nullable().describe('offerData.offerId of POST /projects/from-template'),
  leadRef: idView.nullable(),
  lines: z.array(projectLineView),
  milestones: z.array(projectMilestoneView),
  portalSettings: openObjectView.nullable().describe("the template's portal settings (open)"),
});
export type ProjectView = z.infer<typeof projectView>;

export const projectTaskView = z.object({
  ...recordViewFields,
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(TASK_STATUSES),
  stage: z.number().int().describe('task stage id (task flow)'),
  priority: z.enum(TASK_PRIORITIES),
  assignees: z.array(idView),
  owner: idView,
  deadline: dateTimeView.nullable(),
  tags: z.array(z.string()),
  customFields: customFieldsView,
  estimatedHours: z.number().nullable(),
  taskValue: z.number().nullable(),
  project: idView.nullable().describe('the project (always set for a project task)'),
  customObjectRecord: idView.nullable(),
  customObjectSlug: z.string().nullable(),
  company: idView.nullable(),
  personRef: idView.nullable(),
  leadRef: idView.nullable(),
  dealRef: idView.nullable(),
  completedAt: dateTimeView.nullable(),
  startDate: dateTimeView.nullable(),
  taskType: z.string().nullable(),
  billable: z.boolean().nullable(),
  order: z.number().nullable().describe('board order (ascending; null last)'),
});
export type ProjectTaskView = z.infer<typeof projectTaskView>;

export const projectCommentView = z.object({
  ...recordViewFields,
  projectId: idView,
  taskId: idView,
  content: z.string(),
  internal: z.boolean(),
  visibility: z.enum(COMMENT_VISIBILITIES),
  authorId: idView.describe('user id'),
});
export type ProjectCommentView = z.infer<typeof projectCommentView>;

export const timeEntryView = z.object({
  ...recordViewFields,
  projectId: idView,
  taskId: idView.nullable(),
  ...timeEntryViewFields,
  clipCardId: idView.nullable().describe('the clip card whose hours the entry consumed'),
});
export type TimeEntryView = z.infer<typeof timeEntryView>;

export const projectStatsView = z.object({
  projectId: idView,
  hours: z.object({
    total: z.number(),
    billable: z.number(),
    nonBillable: z.number(),
    entries: z.number().int(),
  }),
  budget: projectBudgetView.nullable(),
  budgetUsed: z.object({
    hours: z.number(),
    hoursPercent: z.number().nullable().describe('null without a budget in hours'),
    amount: z.number().nullable().describe('billable hours × hourlyRate; null without an hourlyRate'),
    amountPercent: z.number().nullable(),
  }),
  tasks: z.object({ open: z.number().int(), done: z.number().int(), total: z.number().int() }),
});
export type ProjectStatsView = z.infer<typeof projectStatsView>;
