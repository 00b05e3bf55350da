import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { NameValue } from '../../platform/shared/custom-fields';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export interface PersonEmail {
  email: string;
  label?: string | null;
}
export interface PersonPhone {
  phone: string;
  label?: string | null;
}

export const Person = defineEntity({
  name: 'Person',
  tableName: 'person',
  indexes: workspaceIndexes('updatedAt', 'companyId', 'profileUrl'),
  properties: {
    ...tenantProps,
    firstName: p.string().length(200),
    lastName: p.string().length(200).nullable(),
    title: p.string().length(200).nullable(),
    emails: p.json<PersonEmail[]>().default([]),
    phones: p.json<PersonPhone[]>().default([]),
    companyId: p.string().length(24).nullable(),
    customFields: p.json<NameValue[]>().default([]),
    tags: p.array().default([]),
    avatar: p.string().length(2048).nullable(),
    ownerId: p.string().length(24).nullable(),
    /** Professional-network profile, canonical (platform/shared/normalize.ts): the lookup key. */
    profileUrl: p.string().length(2048).nullable(),
    /** IANA time zone of the contact (e.g. America/New_York): sequence sends follow its local time. */
    timeZone: p.string().length(64).nullable(),
  },
});
export type Person = InferEntity<typeof Person>;

/** Many-to-many link between people and companies; `Person.companyId` is the primary one. */
export const CompanyPerson = defineEntity({
  name: 'CompanyPerson',
  tableName: 'company_person',
  uniques: [{ properties: ['workspaceId', 'companyId', 'personId'] }],
  indexes: workspaceIndexes('personId'),
  properties: {
    ...tenantProps,
    companyId: p.string().length(24),
    personId: p.string().length(24),
  },
});
export type CompanyPerson = InferEntity<typeof CompanyPerson>;
