import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';

/**
 * Whether the workspace shares what its browser extension observes with the contributor network (one row per
 * workspace).
 */
export const ExtensionContribution = defineEntity({
  name: 'ExtensionContribution',
  tableName: 'extension_contribution',
  uniques: [{ properties: ['workspaceId'] }],
  properties: {
    ...tenantProps,
    enabled: p.boolean().default(false),
    changedBy: p.string().length(24).nullable(),
  },
});
export type ExtensionContribution = InferEntity<typeof ExtensionContribution>;

export interface ObservedFacts {
  name?: string;
  headline?: string;
  title?: string;
  companyName?: string;
  companyProfile?: string;
  domain?: string;
  location?: string;
  industry?: string;
  employees?: number;
}

/**
 * One public-profile observation sent by a workspace's extension. Only facts shown on the public
 * profile page are kept; nothing from the workspace's CRM records is stored here.
 */
export const ExtensionObservation = defineEntity({
  name: 'ExtensionObservation',
  tableName: 'extension_observation',
  uniques: [{ properties: ['workspaceId', 'profileUrl'] }],
  indexes: [{ properties: ['profileUrl'] }, { properties: ['handle'] }, { properties: ['workspaceId', 'createdAt'] }],
  properties: {
    ...tenantProps,
    kind: p.string().length(20).$type<'company' | 'person'>(),
    profileUrl: p.string().length(2048),
    handle: p.string().length(200),
    facts: p.json<ObservedFacts>(),
    observedAt: p.datetime(),
  },
});
export type ExtensionObservation = InferEntity<typeof ExtensionObservation>;
