import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { idProps, p, timestampProps } from '../../platform/orm/base';

export type WorkspaceStatus = 'active' | 'suspended';
export type WorkspacePlan = 'trial' | 'free' | 'basic' | 'starter' | 'pro' | 'enterprise';

export const Workspace = defineEntity({
  name: 'Workspace',
  tableName: 'workspace',
  properties: {
    ...idProps,
    ...timestampProps,
    name: p.string().length(200),
    status: p.string().length(20).$type<WorkspaceStatus>().default('active'),
    plan: p.string().length(20).$type<WorkspacePlan>().default('trial'),
    timezone: p.string().length(64).default('Europe/Copenhagen'),
    /** Days finished runs (executions, step logs, enrollments, their steps) are kept (workspaces/run-retention.ts). */
    runRetentionDays: p.integer().default(30),
  },
});
export type Workspace = InferEntity<typeof Workspace>;
