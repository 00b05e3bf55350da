import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

// Exactly one reference column is set; activityId is the note's own timeline row.
export const Note = defineEntity({
  name: 'Note',
  tableName: 'note',
  indexes: workspaceIndexes('updatedAt', 'company', 'personRef', 'leadRef', 'dealRef'),
  properties: {
    ...tenantProps,
    content: p.text(),
    company: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    leadRef: p.string().length(24).nullable(),
    dealRef: p.string().length(24).nullable(),
    customObjectRecord: p.string().length(24).nullable(),
    customObjectSlug: p.string().length(100).nullable(),
    ownerId: p.string().length(24).nullable(),
    activityId: p.string().length(24).nullable(),
  },
});
export type Note = InferEntity<typeof Note>;
