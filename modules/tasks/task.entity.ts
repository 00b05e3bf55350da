import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export const TASK_STATUSES = ['to_do', 'in_progress', 'blocked', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'critical'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];

// Exactly one of the parent columns is set (spec: Task "parent"); the service enforces it.
export const Task = defineEntity({
  name: 'Task',
  tableName: 'task',
  indexes: workspaceIndexes('updatedAt', 'owner', 'status', 'project', 'deadline'),
  properties: {
    ...tenantProps,
    title: p.string().length(500),
    description: p.text().nullable(),
    status: p.string().length(20).$type<TaskStatus>().default('to_do'),
    stage: p.integer(),
    priority: p.string().length(10).$type<TaskPriority>().default('medium'),
    assignees: p.array().default([]),
    owner: p.string().length(24),
    deadline: p.datetime().nullable(),
    tags: p.array().default([]),
    customFields: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    estimatedHours: p.double().$type<number>().nullable(),
    taskValue: p.double().$type<number>().nullable(),
    project: p.string().length(24).nullable(),
    customObjectRecord: p.string().length(24).nullable(),
    customObjectSlug: p.string().length(100).nullable(),
    company: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    leadRef: p.string().length(24).nullable(),
    dealRef: p.string().length(24).nullable(),
    completedAt: p.datetime().nullable(),
    // Project-task extras (spec: project-task updates accept startDate, taskType, billable, order).
    startDate: p.datetime().nullable(),
    taskType: p.string().length(100).nullable(),
    billable: p.boolean().nullable(),
    order: p.double().$type<number>().nullable(),
  },
});
export type Task = InferEntity<typeof Task>;
