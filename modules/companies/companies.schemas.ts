import { z } from 'zod';
import { profileUrlField } from '../../platform/shared/match-keys.schemas';
import { fieldsQuery, listQuery } from '../../platform/shared/list-query';
import {
  clearableEmail,
  clearableText,
  imageField,
  nameValueCustomFields,
  objectId,
  requiredText,
  tagsField,
} from '../../platform/shared/schemas';
import { dateTimeView, idView, readViewOf } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

export const COMPANY_FIELDS = [
  '_id',
  'name',
  'cvr',
  'email',
  'phone',
  'address',
  'city',
  'zip',
  'country',
  'website',
  'industry',
  'employees',
  'customFields',
  'tags',
  'avatar',
  'logoUrl',
  'ownerId',
  'createdAt',
  'updatedAt',
  'profileUrl',
] as const;
export const COMPANY_SUMMARY_FIELDS = [
  'name',
  'cvr',
  'email',
  'phone',
  'city',
  'website',
  'tags',
  'updatedAt',
] as const;

const companyFields = {
  cvr: clearableText(50).describe('national company registry number; exact-match key for inbound'),
  email: clearableEmail,
  phone: clearableText(50),
  address: clearableText(500),
  city: clearableText(200),
  zip: clearableText(20),
  country: clearableText(100),
  website: clearableText(2048),
  industry: clearableText(200),
  employees: z.number().int('must be an integer').min(0).max(10_000_000).nullable(),
  customFields: nameValueCustomFields.describe('array of { name, value } (an object map is accepted and converted)'),
  tags: tagsField,
  avatar: imageField,
  logoUrl: imageField,
  profileUrl: profileUrlField,
};

export const createCompanyBody = z.object({ name: requiredText(300) }).extend(z.object(companyFields).partial().shape);

/** PUT is a partial update: only the given keys change; customFields merges by name (null removes). */
export const updateCompanyBody = z.object({ name: requiredText(300), ...companyFields }).partial();

export const listCompaniesQuery = listQuery({
  maxLimit: 500,
  fields: COMPANY_FIELDS,
  extra: {
    q: z.string().trim().max(200).optional().describe('case-insensitive match on name, e-mail, cvr, city, website'),
  },
});

export const getCompanyQuery = z.object({ fields: fieldsQuery(COMPANY_FIELDS).optional() });

export const personLinkBody = z.object({ personId: ref('person', objectId) });

/** What the company service writes: the parsed create/update body (create also requires name). */
export type CompanyInput = z.infer<typeof updateCompanyBody>;

/** One stored custom field of a company or person (spec: Conventions, name/value pairs). */
export const nameValueView = z.object({
  name: z.string(),
  value: z.unknown().describe('string, number, boolean or array of strings/numbers, as the field definition allows'),
});

export const companyView = z.object({
  _id: idView,
  name: z.string(),
  cvr: z.string().nullable().describe('national company registry number'),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  address: z.string().nullable(),
  city: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable(),
  website: z.string().nullable(),
  industry: z.string().nullable(),
  employees: z.number().int().nullable(),
  customFields: z.array(nameValueView),
  tags: z.array(z.string()),
  avatar: z.string().nullable().describe('image URL'),
  logoUrl: z.string().nullable().describe('image URL'),
  ownerId: idView.nullable().describe('user who created the company'),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
  profileUrl: z.string().nullable().describe('professional-network profile URL (canonical form)'),
});
export type CompanyView = z.infer<typeof companyView>;

/** A company as GET/list answer it: the full view, or a projection (`_id` plus the chosen fields). */
export const companyReadView = readViewOf(companyView);

export const linkResultView = z.object({ linked: z.boolean().describe('false when the person was already linked') });
export const unlinkResultView = z.object({ unlinked: z.boolean().describe('false when the person was not linked') });
export type LinkResultView = z.infer<typeof linkResultView>;
export type UnlinkResultView = z.infer<typeof unlinkResultView>;
