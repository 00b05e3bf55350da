import type { Ctx } from '../../platform/context';
import { assertRefs } from '../timeline';
import { notFound } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { type Changes, createdEvent, updateWithEvent } from '../../platform/shared/changes';
import { plainOf } from '../../platform/shared/views';
import { clearOtherDefaults, createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import type { TaskPriority } from '../tasks';
import { Project, type ProjectLine, type ProjectMilestone } from './project.entity';
import { ProjectTemplate, type MilestoneTemplate } from './project-template.entity';
import { createProjectTask } from './project-tasks.service';
import { createProject, serializeProject } from './projects.service';
import type { ProjectInput, ProjectTaskView } from './projects.schemas';
import type {
  FromTemplateInput,
  ProjectFromTemplateView,
  ProjectTemplateView,
  TemplateInput,
} from './project-templates.schemas';
import { getRecord } from '../../platform/shared/record-service';

const FIELDS = [
  '_id',
  'name',
  'description',
  'flowRef',
  'taskTemplates',
  'milestoneTemplates',
  'projectData',
  'portalSettings',
  'isDefault',
  'isActive',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;
export const serializeTemplate = (t: ProjectTemplate): ProjectTemplateView => plainOf(t, FIELDS);

export function getTemplate(ctx: Ctx, id: string): Promise<ProjectTemplate> {
  return getRecord(ctx, ProjectTemplate, id, 'project template');
}

/** Active templates by name (default first); includeInactive adds the deleted (deactivated) ones. */
export async function listTemplates(ctx: Ctx, query: { page: number; limit: number; includeInactive?: boolean }) {
  const where = query.includeInactive ? {} : { isActive: true };
  const [items, total] = await ctx.em.findAndCount(ProjectTemplate, where, {
    orderBy: { isDefault: 'desc', name: 'asc', _id: 'asc' },
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
  });
  return { items: items.map(serializeTemplate), total };
}

export async function createTemplate(ctx: Ctx, input: TemplateInput & { name: string }): Promise<ProjectTemplateView> {
  return inTransaction(ctx, async () => {
    const template = createRecord(ctx, ProjectTemplate, {
      name: input.name,
      description: input.description ?? null,
      flowRef: input.flowRef ?? null,
      taskTemplates: input.taskTemplates ?? [],
      milestoneTemplates: input.milestoneTemplates ?? [],
      projectData: input.projectData ?? {},
      portalSettings: input.portalSettings ?? {},
      isDefault: input.isDefault ?? false,
      isActive: input.isActive ?? true,
      createdBy: ctx.actor.userId,
    } as ProjectTemplate);
    if (template.isDefault) await clearOtherDefaults(ctx, ProjectTemplate, template._id);
    emit(ctx, {
      ...createdEvent('project_template', { template: serializeTemplate(template) }),
      entityId: template._id,
    });
    return serializeTemplate(template);
  });
}

export async function updateTemplate(ctx: Ctx, id: string, input: TemplateInput): Promise<ProjectTemplateView> {
  const template = await getTemplate(ctx, id);
  return inTransaction(ctx, async () => {
    const event = {
      type: 'project_template_updated',
      entityType: 'project_template',
      payload: (changes: Changes) => ({ template: serializeTemplate(template), changes }),
    } as const;
    const changes = await updateWithEvent(ctx, template, { ...input } as Partial<ProjectTemplate>, event, {
      flush: false,
    });
    // A native update runs at once; the event is inserted by the transaction's flush.
    if (changes && template.isDefault) await clearOtherDefaults(ctx, ProjectTemplate, template._id);
    return serializeTemplate(template);
  });
}

/** Soft delete (spec): the template is deactivated and no longer the default; projects made from it keep their copy. */
export async function deactivateTemplate(ctx: Ctx, id: string): Promise<ProjectTemplateView> {
  return updateTemplate(ctx, id, { isActive: false, isDefault: false });
}

export interface OfferLineInput {
  title?: string;
  name?: string;
  description?: string | null;
  quantity?: number;
  unitPrice?: number;
  price?: number;
  unit?: string | null;
  discount?: number;
  productId?: string | null;
}
const money = (n: number): number => Math.round(n * 100) / 100;

/** An offer line as a project line: quantity × unit price less the discount percentage. */
export function projectLine(l: OfferLineInput): ProjectLine {
  const quantity = l.quantity ?? 1;
  const unitPrice = l.unitPrice ?? l.price ?? 0;
  const discount = l.discount ?? 0;
  return {
    title: (l.title ?? l.name ?? l.description ?? '').trim() || 'Line',
    description: l.description ?? null,
    quantity,
    unitPrice,
    unit: l.unit ?? null,
    discount,
    total: money(quantity * unitPrice * (1 - discount / 100)),
    productId: l.productId ?? null,
  };
}

const milestone = (m: MilestoneTemplate, from: Date): ProjectMilestone => ({
  title: m.title,
  description: m.description ?? null,
  dueDate:
    m.dueInDays === undefined || m.dueInDays === null
      ? null
      : new Date(from.getTime() + m.dueInDays * 86_400_000).toISOString(),
});

/**
 * A project from an active template: the template's project fields, portal settings, milestones
 * and tasks are copied; offerData's lines become project lines and its deal and lead are linked.
 * All in one transaction: an invalid copied task (unknown task stage) leaves nothing behind.
 */
export async function createProjectFromTemplate(ctx: Ctx, input: FromTemplateInput): Promise<ProjectFromTemplateView> {
  const template = await getTemplate(ctx, input.templateId);
  if (!template.isActive) throw notFound('project template');
  const data = template.projectData as ProjectInput;
  const offer = input.offerData;
  const title = input.title ?? offer?.offerTitle ?? template.name;
  await assertRefs(ctx, [{ field: 'offerData.leadRef', kind: 'lead', id: offer?.leadRef }]);
  return inTransaction(ctx, async () => {
    const made = (await createProject(
      ctx,
      {
        ...data,
        title,
        ...(input.company !== undefined ? { company: input.company } : {}),
        ...(input.personRef !== undefined ? { personRef: input.personRef } : {}),
        ...(offer?.dealRef ? { dealRef: offer.dealRef } : {}),
      },
      { preview: false },
    )) as { _id: string };
    const project = await ctx.em.findOneOrFail(Project, { _id: made._id });
    const now = new Date();
    project.templateRef = template._id;
    project.offerRef = offer?.offerId ?? null;
    project.leadRef = offer?.leadRef ?? null;
    project.lines = (offer?.lineItems ?? []).map(projectLine);
    project.milestones = template.milestoneTemplates.map((m) => milestone(m, now));
    project.portalSettings = Object.keys(template.portalSettings).length ? template.portalSettings : null;
    const tasks: ProjectTaskView[] = [];
    for (const [i, t] of template.taskTemplates.entries()) {
      tasks.push(
        await createProjectTask(ctx, project._id, {
          title: t.title,
          ...(t.description ? { description: t.description } : {}),
          ...(t.stage !== undefined && t.stage !== null ? { stage: t.stage } : {}),
          ...(t.priority ? { priority: t.priority as TaskPriority } : {}),
          order: i + 1,
        }),
      );
    }
    await ctx.em.flush();
    return { ...serializeProject(project), tasks };
  });
}
