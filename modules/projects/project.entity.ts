import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import { timeEntryProps } from './time-entry-fields';

export const PROJECT_STATUSES = ['planning', 'active', 'on_hold', 'completed', 'cancelled'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];
export const PROJECT_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type ProjectPriority = (typeof PROJECT_PRIORITIES)[number];

/** Budget of a project: hours and/or an amount; hourlyRate prices billable hours against the amount. */
export interface ProjectBudget {
  hours: number | null;
  amount: number | null;
  hourlyRate: number | null;
}

export const Project = defineEntity({
  name: 'Project',
  tableName: 'project',
  indexes: workspaceIndexes('createdAt', 'status', 'company'),
  properties: {
    ...tenantProps,
    title: p.string().length(300),
    description: p.text().nullable(),
    status: p.string().length(20).$type<ProjectStatus>().default('active'),
    priority: p.string().length(10).$type<ProjectPriority>().default('medium'),
    owner: p.string().length(24),
    tags: p.array().default([]),
    customFields: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    company: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    dealRef: p.string().length(24).nullable(),
    startDate: p.datetime().nullable(),
    endDate: p.datetime().nullable(),
    budget: p.json<ProjectBudget>().nullable(),
    stage: p.integer(),
    minTimeEntryWords: p.integer().nullable(),
    /** Set by POST /projects/from-template: the template, the offer it came from, its lines and milestones. */
    templateRef: p.string().length(24).nullable(),
    offerRef: p.string().length(100).nullable(),
    leadRef: p.string().length(24).nullable(),
    lines: p.json<ProjectLine[]>().defaultRaw(`'[]'`),
    milestones: p.json<ProjectMilestone[]>().defaultRaw(`'[]'`),
    portalSettings: p.json<Record<string, unknown>>().nullable(),
  },
});
export type Project = InferEntity<typeof Project>;

/** An offer line carried into the project (what was sold). */
export interface ProjectLine {
  title: string;
  description: string | null;
  quantity: number;
  unitPrice: number;
  unit: string | null;
  discount: number;
  total: number;
  productId: string | null;
}
export interface ProjectMilestone {
  title: string;
  description: string | null;
  dueDate: string | null;
}

export const COMMENT_VISIBILITIES = ['customer', 'internal'] as const;
export type CommentVisibility = (typeof COMMENT_VISIBILITIES)[number];

export const ProjectComment = defineEntity({
  name: 'ProjectComment',
  tableName: 'project_comment',
  indexes: workspaceIndexes(['taskId', 'createdAt']),
  properties: {
    ...tenantProps,
    projectId: p.string().length(24),
    taskId: p.string().length(24),
    content: p.text(),
    internal: p.boolean().default(false),
    visibility: p.string().length(10).$type<CommentVisibility>().default('customer'),
    authorId: p.string().length(24),
  },
});
export type ProjectComment = InferEntity<typeof ProjectComment>;

export const TimeEntry = defineEntity({
  name: 'TimeEntry',
  tableName: 'project_time_entry',
  indexes: workspaceIndexes(['projectId', 'date']),
  properties: {
    ...tenantProps,
    projectId: p.string().length(24),
    taskId: p.string().length(24).nullable(),
    ...timeEntryProps,
    clipCardId: p.string().length(24).nullable(),
  },
});
export type TimeEntry = InferEntity<typeof TimeEntry>;

export const CLIP_CARD_STATUSES = ['active', 'depleted', 'expired', 'cancelled'] as const;
export type ClipCardStatus = (typeof CLIP_CARD_STATUSES)[number];

// usedHours is a running total kept by the time-entry service (atomic increments); the status is
// derived from it, the expiry and the cancelled flag on every read.
export const ClipCard = defineEntity({
  name: 'ClipCard',
  tableName: 'clip_card',
  indexes: workspaceIndexes(['projectId', 'createdAt']),
  properties: {
    ...tenantProps,
    projectId: p.string().length(24),
    title: p.string().length(300).nullable(),
    totalHours: p.double().$type<number>(),
    usedHours: p.double().$type<number>().default(0),
    hourlyRate: p.double().$type<number>(),
    allowOverdraft: p.boolean().default(false),
    overdraftRate: p.double().$type<number>().nullable(),
    expiresAt: p.datetime().nullable(),
    notes: p.text().nullable(),
    cancelledAt: p.datetime().nullable(),
  },
});
export type ClipCard = InferEntity<typeof ClipCard>;
