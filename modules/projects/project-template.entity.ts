import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { TaskPriority } from '../tasks';
import type { TemplateProjectData } from './project-templates.schemas';

export interface TaskTemplate {
  title: string;
  description?: string | null;
  stage?: number | null;
  priority?: TaskPriority | null;
}
export interface MilestoneTemplate {
  title: string;
  description?: string | null;
  dueInDays?: number | null;
}

/** A reusable project: tasks, milestones, project fields and portal settings copied by POST /projects/from-template. */
export const ProjectTemplate = defineEntity({
  name: 'ProjectTemplate',
  tableName: 'project_template',
  indexes: workspaceIndexes(['isActive', 'name']),
  properties: {
    ...tenantProps,
    name: p.string().length(300),
    description: p.text().nullable(),
    flowRef: p.string().length(100).nullable(),
    taskTemplates: p.json<TaskTemplate[]>().defaultRaw(`'[]'`),
    milestoneTemplates: p.json<MilestoneTemplate[]>().defaultRaw(`'[]'`),
    projectData: p.json<TemplateProjectData>().defaultRaw(`'{}'`),
    portalSettings: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    isDefault: p.boolean().default(false),
    isActive: p.boolean().default(true),
    createdBy: p.string().length(24),
  },
});
export type ProjectTemplate = InferEntity<typeof ProjectTemplate>;
