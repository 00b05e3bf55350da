import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { NameValue } from '../../platform/shared/custom-fields';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export const Company = defineEntity({
  name: 'Company',
  tableName: 'company',
  indexes: workspaceIndexes('updatedAt', 'createdAt', 'cvr', 'profileUrl'),
  properties: {
    ...tenantProps,
    name: p.string().length(300),
    cvr: p.string().length(50).nullable(),
    email: p.string().length(320).nullable(),
    phone: p.string().length(50).nullable(),
    address: p.string().length(500).nullable(),
    city: p.string().length(200).nullable(),
    zip: p.string().length(20).nullable(),
    country: p.string().length(100).nullable(),
    website: p.string().length(2048).nullable(),
    industry: p.string().length(200).nullable(),
    employees: p.integer().nullable(),
    customFields: p.json<NameValue[]>().default([]),
    tags: p.array().default([]),
    avatar: p.string().length(2048).nullable(),
    logoUrl: p.string().length(2048).nullable(),
    ownerId: p.string().length(24).nullable(),
    /** Professional-network profile, canonical (platform/shared/normalize.ts): the lookup key. */
    profileUrl: p.string().length(2048).nullable(),
  },
});
export type Company = InferEntity<typeof Company>;
