import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

/** One matched scoring rule, kept on the lead so clients can explain its score. */
export interface ScoreBreakdownEntry {
  ruleId: string;
  name: string;
  field: string;
  condition: string;
  points: number;
}

export const Lead = defineEntity({
  name: 'Lead',
  tableName: 'lead',
  indexes: workspaceIndexes('updatedAt', 'createdAt', 'status', 'personRef', 'companyRef'),
  properties: {
    ...tenantProps,
    title: p.string().length(500),
    email: p.string().length(320).nullable(),
    phone: p.string().length(50).nullable(),
    status: p.string().length(50).default('new'),
    source: p.string().length(100).nullable(),
    notes: p.text().nullable(),
    score: p.integer().default(0),
    scoreBreakdown: p.json<ScoreBreakdownEntry[]>().default([]),
    value: p.double().$type<number>().nullable(),
    companyRef: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    customFields: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    tags: p.array().default([]),
    ownerId: p.string().length(24).nullable(),
    /** IANA time zone of the lead's contact: sequence sends follow its local time. */
    timeZone: p.string().length(64).nullable(),
  },
});
export type Lead = InferEntity<typeof Lead>;
