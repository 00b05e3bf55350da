import type { Ctx } from '../../platform/context';
import { getRecord, previewAnswer } from '../../platform/shared/record-service';
import { validation } from '../../platform/errors';
import { assertRefs, assertUsers } from '../timeline';
import { assertCustomFieldValues } from '../custom-fields';
import {
  applyPatch,
  deleteWithEvent,
  emitTaggedCreate,
  emitTaggedUpdate,
  normalizeTags,
} from '../../platform/shared/changes';
import { mergeObject } from '../../platform/shared/custom-fields';
import { findPage, likeAny, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { type PreviewResult } from '../../platform/shared/preview';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Task, serializeTask } from '../tasks';
import { ClipCard, Project, ProjectComment, TimeEntry, type ProjectBudget, type ProjectStatus } from './project.entity';
import { assertProjectStage, FIRST_PROJECT_STAGE } from './project-rules';
import type { ProjectInput, ProjectStatsView, ProjectView } from './projects.schemas';

export const PROJECT_FIELDS = [
  '_id',
  'title',
  'description',
  'status',
  'priority',
  'owner',
  'tags',
  'customFields',
  'company',
  'personRef',
  'dealRef',
  'startDate',
  'endDate',
  'budget',
  'stage',
  'minTimeEntryWords',
  'createdAt',
  'updatedAt',
  'templateRef',
  'offerRef',
  'leadRef',
  'lines',
  'milestones',
  'portalSettings',
] as const;

export const serializeProject = (p: Project): ProjectView => plainOf(p, PROJECT_FIELDS);

export function getProject(ctx: Ctx, id: string): Promise<Project> {
  return getRecord(ctx, Project, id, 'project');
}

async function checkInput(ctx: Ctx, input: ProjectInput, requireAll: boolean): Promise<void> {
  await assertRefs(ctx, [
    { field: 'company', kind: 'company', id: input.company },
    { field: 'personRef', kind: 'person', id: input.personRef },
    { field: 'dealRef', kind: 'deal', id: input.dealRef },
  ]);
  if (input.owner !== undefined) await assertUsers(ctx, 'owner', [input.owner]);
  if (input.stage !== undefined) assertProjectStage('stage', input.stage);
  if (input.customFields !== undefined || requireAll)
    await assertCustomFieldValues(ctx, 'project', input.customFields ?? {}, { requireAll });
}

const budgetOf = (
  b: Partial<ProjectBudget> | null | undefined,
  current: ProjectBudget | null,
): ProjectBudget | null => {
  if (b === null) return null;
  const merged = { hours: null, amount: null, hourlyRate: null, ...(current ?? {}), ...(b ?? {}) };
  return merged.hours === null && merged.amount === null && merged.hourlyRate === null ? null : merged;
};

function scalars(input: ProjectInput): Partial<Project> {
  const out: Record<string, unknown> = {};
  for (const key of [
    'title',
    'description',
    'status',
    'priority',
    'owner',
    'company',
    'personRef',
    'dealRef',
    'startDate',
    'endDate',
    'stage',
    'minTimeEntryWords',
  ] as const) {
    if (input[key] !== undefined) out[key] = input[key];
  }
  return out as Partial<Project>;
}

export async function createProject(
  ctx: Ctx,
  input: ProjectInput & { title: string },
  opts: { preview: boolean },
): Promise<ProjectView | PreviewResult> {
  await checkInput(ctx, input, true);
  const project = createRecord(ctx, Project, {
    status: 'active',
    priority: 'medium',
    owner: ctx.actor.userId,
    stage: FIRST_PROJECT_STAGE,
    templateRef: null,
    offerRef: null,
    leadRef: null,
    lines: [],
    milestones: [],
    portalSettings: null,
    ...scalars(input),
    tags: normalizeTags(input.tags) ?? [],
    customFields: mergeObject({}, input.customFields ?? {}),
    budget: budgetOf(input.budget, null),
  } as Project);
  if (opts.preview) return previewAnswer(ctx, null, serializeProject(project));
  await emitTaggedCreate(ctx, project, {
    type: 'project_created',
    entityType: 'project',
    payload: { project: serializeProject(project) },
  });
  return serializeProject(project);
}

export async function updateProject(
  ctx: Ctx,
  id: string,
  input: ProjectInput,
  opts: { preview: boolean },
): Promise<ProjectView | PreviewResult> {
  const project = await getProject(ctx, id);
  await checkInput(ctx, input, false);
  const current = serializeProject(project);
  const beforeTags = [...project.tags];
  const changes = applyPatch(project, {
    ...scalars(input),
    ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
    ...(input.customFields !== undefined
      ? { customFields: mergeObject(project.customFields, input.customFields) }
      : {}),
    ...(input.budget !== undefined ? { budget: budgetOf(input.budget, project.budget ?? null) } : {}),
  } as Partial<Project>);
  if (opts.preview) return previewAnswer(ctx, current, serializeProject(project));
  await emitTaggedUpdate(ctx, project, changes, beforeTags, {
    type: 'project_updated',
    entityType: 'project',
    payload: () => ({ project: serializeProject(project), changes }),
  });
  return serializeProject(project);
}

export async function moveProject(ctx: Ctx, id: string, stageId: number | string): Promise<ProjectView> {
  await getProject(ctx, id);
  const stage = typeof stageId === 'number' ? stageId : /^\d{1,9}$/.test(stageId.trim()) ? Number(stageId) : NaN;
  if (!Number.isInteger(stage))
    throw validation(`stageId: unknown project stage ${String(stageId)}`, [
      { path: 'stageId', error: 'unknown stage' },
    ]);
  assertProjectStage('stageId', stage);
  const saved = await updateProject(ctx, id, { stage }, { preview: false });
  if ('preview' in saved) throw new Error('moveProject: an update without preview answered a preview');
  return saved;
}

/** The project goes with its tasks, comments, time entries and clip cards. */
export async function deleteProject(ctx: Ctx, id: string): Promise<void> {
  const project = await getProject(ctx, id);
  const ws = ctx.actor.workspaceId;
  await inTransaction(ctx, async () => {
    await ctx.em.nativeDelete(ProjectComment, { workspaceId: ws, projectId: id });
    await ctx.em.nativeDelete(TimeEntry, { workspaceId: ws, projectId: id });
    await ctx.em.nativeDelete(ClipCard, { workspaceId: ws, projectId: id });
    // Tasks go one by one with their task_deleted events (search index, webhooks follow them).
    for (const task of await ctx.em.find(Task, { project: id })) {
      await deleteWithEvent(
        ctx,
        task,
        { type: 'task_deleted', entityType: 'task', payload: { task: serializeTask(task) } },
        { flush: false },
      );
    }
    await deleteWithEvent(
      ctx,
      project,
      { type: 'project_deleted', entityType: 'project', payload: { project: serializeProject(project) } },
      { flush: false },
    );
  });
}

export interface ProjectListQuery extends PageRequest {
  status?: ProjectStatus;
  owner?: string;
  company?: string;
  q?: string;
}

export async function listProjects(ctx: Ctx, query: ProjectListQuery) {
  const where: Record<string, unknown> = {};
  if (query.status) where.status = query.status;
  if (query.owner) where.owner = query.owner;
  if (query.company) where.company = query.company;
  if (query.q) where.$or = likeAny(query.q, ['title', 'description']);
  const { items, total } = await findPage(ctx.em, Project, where, query, { createdAt: 'desc' });
  return { items: items.map(serializeProject), total };
}

const round = (n: number): number => Math.round(n * 100) / 100;
const percent = (used: number, budget: number | null): number | null => (budget ? round((used / budget) * 100) : null);

/** Hours logged (billable and not), budget used, open and done tasks. */
export async function projectStats(ctx: Ctx, id: string): Promise<ProjectStatsView> {
  const project = await getProject(ctx, id);
  const ws = ctx.actor.workspaceId;
  const [hours] = await ctx.em.execute<{ total: number | null; billable: number | null; entries: string }[]>(
    `select sum(hours) as total, sum(hours) filter (where billable) as billable, count(*) as entries from project_time_entry where workspace_id = ? and project_id = ?`,
    [ws, id],
  );
  const [tasks] = await ctx.em.execute<{ open: string; done: string }[]>(
    `select count(*) filter (where status <> 'done') as open, count(*) filter (where status = 'done') as done from task where workspace_id = ? and project = ?`,
    [ws, id],
  );
  const total = round(Number(hours?.total ?? 0));
  const billable = round(Number(hours?.billable ?? 0));
  const budget = project.budget ?? null;
  const amountUsed = budget?.hourlyRate != null ? round(billable * budget.hourlyRate) : null;
  return {
    projectId: id,
    hours: { total, billable, nonBillable: round(total - billable), entries: Number(hours?.entries ?? 0) },
    budget,
    budgetUsed: {
      hours: total,
      hoursPercent: percent(total, budget?.hours ?? null),
      amount: amountUsed,
      amountPercent: amountUsed === null ? null : percent(amountUsed, budget?.amount ?? null),
    },
    tasks: {
      open: Number(tasks?.open ?? 0),
      done: Number(tasks?.done ?? 0),
      total: Number(tasks?.open ?? 0) + Number(tasks?.done ?? 0),
    },
  };
}
