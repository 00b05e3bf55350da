import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { AgentPermissions, ModelTier } from './agents.schemas';

/** An AI agent configuration; agents have no schedule of their own and are started by automation actions. */
export const Agent = defineEntity({
  name: 'Agent',
  tableName: 'agent',
  indexes: workspaceIndexes('createdAt'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.text().nullable(),
    goal: p.text().nullable(),
    systemPrompt: p.text().nullable(),
    icon: p.string().length(100).nullable(),
    modelTier: p.string().length(20).$type<ModelTier>().default('balanced'),
    enabled: p.boolean().default(true),
    permissions: p.json<AgentPermissions>(),
    createdBy: p.string().length(24),
  },
});
export type Agent = InferEntity<typeof Agent>;
