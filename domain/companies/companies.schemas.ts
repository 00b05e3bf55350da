import { z } from 'zod';
import { profileUrlField } from '../lookups/lookups.schemas';
import { fieldsQuery, listQuery } from '../shared/list-query';
import {
  clearableEmail,
  clearableText,
  imageField,
  nameValueCustomFields,
  objectId,
  requiredText,
  tagsField,
} from '../shared/schemas';

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

export const personLinkBody = z.object({ personId: objectId });

/** What the company service writes: the parsed create/update body (create also requires name). */
export type CompanyInput = z.infer<typeof updateCompanyBody>;
