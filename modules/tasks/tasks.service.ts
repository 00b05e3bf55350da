import type { Ctx } from '../../platform/context';
import { deleteById, getRecord, readRecord } from '../../platform/shared/record-service';
import {
  recordSystemActivity,
  parentEntityType,
  TASK_PARENT_FIELDS,
  resolveParentRef,
  assertUsers,
  linkColumns,
} from '../timeline';
import { assertCustomFieldValues } from '../custom-fields';
import { applyPatch, emitTaggedCreate, emitTaggedUpdate, normalizeTags } from '../../platform/shared/changes';
import { mergeObject } from '../../platform/shared/custom-fields';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { getTaskFlow } from './task-flow.service';
import { resolveStageStatus } from './task-rules';
import { Task } from './task.entity';
import type { TaskInput, TaskView } from './tasks.schemas';

export const TASK_FIELDS = [
  '_id',
  'title',
  'description',
  'status',
  'stage',
  'priority',
  'assignees',
  'owner',
  'deadline',
  'tags',
  'customFields',
  'estimatedHours',
  'taskValue',
  'project',
  'customObjectRecord',
  'customObjectSlug',
  'company',
  'personRef',
  'leadRef',
  'dealRef',
  'completedAt',
  'createdAt',
  'updatedAt',
] as const;
export const TASK_SUMMARY_FIELDS = [
  'title',
  'status',
  'stage',
  'priority',
  'assignees',
  'owner',
  'deadline',
  'updatedAt',
] as const;

type ParentField = keyof typeof TASK_PARENT_FIELDS;
const PARENT_FIELDS = Object.keys(TASK_PARENT_FIELDS) as ParentField[];

export const serializeTask = (t: Task): TaskView => plainOf(t, TASK_FIELDS);

export function readTask(ctx: Ctx, id: string): Promise<TaskView> {
  return readRecord(ctx, Task, id, 'task', serializeTask);
}

export function getTask(ctx: Ctx, id: string): Promise<Task> {
  return getRecord(ctx, Task, id, 'task');
}

const resolveTaskParent = (ctx: Ctx, current: Task | null, input: TaskInput) =>
  resolveParentRef(ctx, TASK_PARENT_FIELDS, current, input);

function feedRow(ctx: Ctx, task: Task, type: 'task_created' | 'task_completed'): void {
  const field = PARENT_FIELDS.find((f) => task[f])!;
  const parentId = task[field] as string;
  const summary = type === 'task_created' ? `Task ${task.title} created` : `Task ${task.title} completed`;
  recordSystemActivity(
    ctx,
    {
      ...linkColumns(TASK_PARENT_FIELDS[field], parentId),
      entityType: parentEntityType(TASK_PARENT_FIELDS[field]),
      entityId: parentId,
    },
    type,
    summary,
    { taskId: task._id, status: task.status },
    { taskRef: task._id },
  );
}

function scalars(input: TaskInput): Partial<Task> {
  const out: Partial<Task> = {};
  for (const key of ['title', 'description', 'priority', 'deadline', 'estimatedHours', 'taskValue'] as const) {
    if (input[key] !== undefined) (out as Record<string, unknown>)[key] = input[key];
  }
  return out;
}

export async function createTask(ctx: Ctx, input: TaskInput & { title: string }): Promise<TaskView> {
  const parent = await resolveTaskParent(ctx, null, input);
  const assignees = input.assignees ?? [ctx.actor.userId];
  const owner = input.owner ?? ctx.actor.userId;
  await assertUsers(ctx, 'assignees', assignees);
  await assertUsers(ctx, 'owner', [owner]);
  await assertCustomFieldValues(ctx, 'task', input.customFields ?? {}, { requireAll: true });
  const state = resolveStageStatus(await getTaskFlow(ctx), null, input);
  const task = createRecord(ctx, Task, {
    priority: 'medium',
    ...scalars(input),
    ...parent.values,
    ...state,
    assignees: [...new Set(assignees)],
    owner,
    tags: normalizeTags(input.tags) ?? [],
    customFields: mergeObject({}, input.customFields ?? {}),
    completedAt: state.status === 'done' ? new Date() : null,
  } as Task);
  await emitTaggedCreate(
    ctx,
    task,
    { type: 'task_created', entityType: 'task', payload: { task: serializeTask(task) } },
    { also: () => feedRow(ctx, task, 'task_created') },
  );
  return serializeTask(task);
}

export async function updateTask(ctx: Ctx, id: string, input: TaskInput): Promise<TaskView> {
  const task = await getTask(ctx, id);
  const touchesParent = PARENT_FIELDS.some((f) => input[f] !== undefined) || input.customObjectSlug !== undefined;
  const parent = touchesParent ? await resolveTaskParent(ctx, task, input) : null;
  if (input.assignees !== undefined) await assertUsers(ctx, 'assignees', input.assignees);
  if (input.owner !== undefined) await assertUsers(ctx, 'owner', [input.owner]);
  if (input.customFields !== undefined) await assertCustomFieldValues(ctx, 'task', input.customFields);
  const state =
    input.stage !== undefined || input.status !== undefined
      ? resolveStageStatus(await getTaskFlow(ctx), task, input)
      : null;
  const wasDone = task.status === 'done';
  const beforeTags = [...task.tags];
  const changes = applyPatch(task, {
    ...scalars(input),
    ...(parent?.values ?? {}),
    ...(state ?? {}),
    ...(input.assignees !== undefined ? { assignees: [...new Set(input.assignees)] } : {}),
    ...(input.owner !== undefined ? { owner: input.owner } : {}),
    ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
    ...(input.customFields !== undefined ? { customFields: mergeObject(task.customFields, input.customFields) } : {}),
  } as Partial<Task>);
  if (!Object.keys(changes).length) return serializeTask(task);
  if (task.status === 'done' && !wasDone) task.completedAt = new Date();
  if (task.status !== 'done') task.completedAt = null;
  const payload = () => ({ task: serializeTask(task), changes });
  await emitTaggedUpdate(
    ctx,
    task,
    changes,
    beforeTags,
    { type: 'task_updated', entityType: 'task', payload },
    {
      also: () => {
        if (task.status === 'done' && !wasDone) feedRow(ctx, task, 'task_completed');
      },
    },
  );
  return serializeTask(task);
}

/** The task goes; its feed rows stay as history. */
export const deleteTask = deleteById(getTask, 'task', (task) => ({ task: serializeTask(task) }));
