import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../../platform/orm/base';

/** Why a trigger evaluation of an automation started no run (issue 27): listed by GET /automations/:id/skips. */
export const SKIP_REASONS = [
  'conditions_false',
  'entity_type_mismatch',
  'inactive',
  'run_cap',
  'rate_limited',
  'duplicate',
  'workspace_suspended',
  'loop_guard',
] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** One non-start. Ids are time-ordered, so the 14-day pruning deletes by id range. */
export const AutomationSkip = defineEntity({
  name: 'AutomationSkip',
  tableName: 'automation_skip',
  indexes: [
    { name: 'automation_skip_list_index', properties: ['workspaceId', 'automationId', '_id'] },
    {
      name: 'automation_skip_record_index',
      properties: ['workspaceId', 'automationId', 'entityType', 'entityId', '_id'],
    },
  ],
  properties: {
    ...tenantProps,
    automationId: p.string().length(24),
    triggerType: p.string().length(60),
    /** The start's dedupe key (outbox event id, `wh:<delivery>`, `api:<id>`), when there was one. */
    triggerKey: p.string().length(100).nullable(),
    entityType: p.string().length(40).nullable(),
    entityId: p.string().length(64).nullable(),
    reason: p.string().length(40).$type<SkipReason>(),
    message: p.string().length(300),
    /** The values that decided it (bounded, no secrets: see boundDetails). */
    details: p.json<Record<string, unknown>>(),
  },
});
export type AutomationSkip = InferEntity<typeof AutomationSkip>;
