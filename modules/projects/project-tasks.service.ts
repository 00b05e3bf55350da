import type { Ctx } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { applyPatch, createdEvent, emitCreate, updatedEvent, updateWithEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Task, createTask, deleteTask, TASK_FIELDS, updateTask, type TaskInput } from '../tasks';
import { ProjectComment } from './project.entity';
import { commentText, commentVisibility } from './project-rules';
import { getProject } from './projects.service';
import type { CommentInput, ProjectCommentView, ProjectTaskView } from './projects.schemas';

/** Fields only project tasks carry (spec: project-task updates additionally accept these). */
export interface ProjectTaskExtras {
  startDate?: Date | null;
  taskType?: string | null;
  billable?: boolean;
  order?: number | null;
}
const EXTRA_KEYS = ['startDate', 'taskType', 'billable', 'order'] as const;

/** The task view (TASK_FIELDS, as serializeTask) plus the project-task extras. */
export const serializeProjectTask = (t: Task): ProjectTaskView => plainOf(t, [...TASK_FIELDS, ...EXTRA_KEYS]);

/** A task whose parent is a project; other tasks are not found under /projects/tasks. */
export async function getProjectTask(ctx: Ctx, taskId: string): Promise<Task> {
  const task = await ctx.em.findOne(Task, { _id: taskId, project: { $ne: null } });
  if (!task) throw notFound('project task');
  return task;
}

function splitExtras<T extends ProjectTaskExtras>(
  input: T,
): { base: Omit<T, keyof ProjectTaskExtras>; extras: Partial<Task> } {
  const { startDate, taskType, billable, order, ...base } = input;
  const extras: Record<string, unknown> = { startDate, taskType, billable, order };
  for (const key of EXTRA_KEYS) if (extras[key] === undefined) delete extras[key];
  return { base, extras: extras as Partial<Task> };
}

/**
 * Sets the project-task extras; an update of them is a task_updated event (on create, task_created already carries the
 * task).
 */
async function applyExtras(ctx: Ctx, taskId: string, extras: Partial<Task>, announce: boolean): Promise<Task> {
  const task = await getProjectTask(ctx, taskId);
  const changes = applyPatch(task, extras);
  if (Object.keys(changes).length) {
    task.updatedAt = new Date();
    if (announce)
      emit(ctx, {
        type: 'task_updated',
        entityType: 'task',
        entityId: task._id,
        payload: { task: serializeProjectTask(task), changes },
      });
    await ctx.em.flush();
  }
  return task;
}

export async function createProjectTask(
  ctx: Ctx,
  projectId: string,
  input: TaskInput & ProjectTaskExtras & { title: string },
): Promise<ProjectTaskView> {
  await getProject(ctx, projectId);
  const { base, extras } = splitExtras(input);
  return inTransaction(ctx, async () => {
    const created = await createTask(ctx, { ...base, project: projectId });
    return serializeProjectTask(await applyExtras(ctx, created._id as string, extras, false));
  });
}

export async function updateProjectTask(
  ctx: Ctx,
  taskId: string,
  input: TaskInput & ProjectTaskExtras,
): Promise<ProjectTaskView> {
  await getProjectTask(ctx, taskId);
  const { base, extras } = splitExtras(input);
  return inTransaction(ctx, async () => {
    await updateTask(ctx, taskId, base);
    return serializeProjectTask(await applyExtras(ctx, taskId, extras, true));
  });
}

export async function deleteProjectTask(ctx: Ctx, taskId: string): Promise<void> {
  await getProjectTask(ctx, taskId);
  await inTransaction(ctx, async () => {
    await ctx.em.nativeDelete(ProjectComment, { workspaceId: ctx.actor.workspaceId, taskId });
    await deleteTask(ctx, taskId);
  });
}

/** Tasks of a project in board order (order, then oldest first). */
export async function listProjectTasks(ctx: Ctx, projectId: string, page: PageRequest) {
  await getProject(ctx, projectId);
  const [items, total] = await ctx.em.findAndCount(
    Task,
    { project: projectId },
    {
      limit: page.limit,
      offset: (page.page - 1) * page.limit,
      orderBy: { order: 'asc nulls last', createdAt: 'asc', _id: 'asc' } as never,
    },
  );
  return { items: items.map(serializeProjectTask), total };
}

export const COMMENT_FIELDS = [
  '_id',
  'projectId',
  'taskId',
  'content',
  'internal',
  'visibility',
  'authorId',
  'createdAt',
  'updatedAt',
] as const;
export const serializeComment = (c: ProjectComment): ProjectCommentView => plainOf(c, COMMENT_FIELDS);

export async function createComment(ctx: Ctx, taskId: string, input: CommentInput): Promise<ProjectCommentView> {
  const task = await getProjectTask(ctx, taskId);
  const content = commentText(input.content ?? '');
  const vis = commentVisibility(input);
  const comment = createRecord(ctx, ProjectComment, {
    projectId: task.project!,
    taskId,
    content,
    ...vis,
    authorId: ctx.actor.userId,
  } as ProjectComment);
  await emitCreate(ctx, comment, createdEvent('project_comment', { comment: serializeComment(comment) }));
  return serializeComment(comment);
}

export async function getComment(ctx: Ctx, taskId: string, commentId: string): Promise<ProjectComment> {
  await getProjectTask(ctx, taskId);
  const comment = await ctx.em.findOne(ProjectComment, { _id: commentId, taskId });
  if (!comment) throw notFound('comment');
  return comment;
}

export async function updateComment(
  ctx: Ctx,
  taskId: string,
  commentId: string,
  input: CommentInput,
): Promise<ProjectCommentView> {
  const comment = await getComment(ctx, taskId, commentId);
  const patch: Partial<ProjectComment> = {
    ...commentVisibility(input, { internal: comment.internal, visibility: comment.visibility }),
  };
  if (input.content !== undefined) patch.content = commentText(input.content);
  await updateWithEvent(
    ctx,
    comment,
    patch,
    updatedEvent('project_comment', (changes) => ({
      comment: serializeComment(comment),
      changes: Object.keys(changes),
    })),
  );
  return serializeComment(comment);
}

export async function listComments(ctx: Ctx, taskId: string, page: PageRequest) {
  await getProjectTask(ctx, taskId);
  const { items, total } = await findPage(ctx.em, ProjectComment, { taskId }, page, { createdAt: 'asc' });
  return { items: items.map(serializeComment), total };
}
