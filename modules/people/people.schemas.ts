import { z } from 'zod';
import { profileUrlField } from '../../platform/shared/match-keys.schemas';
import { fieldsQuery, listQuery } from '../../platform/shared/list-query';
import {
  clearableText,
  imageField,
  nameValueCustomFields,
  objectId,
  requiredText,
  tagsField,
} from '../../platform/shared/schemas';
import { dateTimeView, idView, readViewOf } from '../../platform/shared/views';
import { nameValueView } from '../companies';
import { ref } from '../../platform/references/refs';
import { timeZoneField } from '../../platform/shared/time-zone';

export const PERSON_FIELDS = [
  '_id',
  'firstName',
  'lastName',
  'title',
  'emails',
  'phones',
  'companyId',
  'customFields',
  'tags',
  'avatar',
  'ownerId',
  'createdAt',
  'updatedAt',
  'profileUrl',
  'timeZone',
] as const;
export const PERSON_SUMMARY_FIELDS = [
  'firstName',
  'lastName',
  'title',
  'emails',
  'phones',
  'companyId',
  'updatedAt',
] as const;

const label = z.string().trim().max(50, 'label must be at most 50 characters').nullable().optional();

const personFields = {
  lastName: clearableText(200),
  title: clearableText(200),
  emails: z
    .array(
      z.object({
        email: z
          .email({ message: 'must be a valid e-mail address' })
          .max(320)
          .transform((e) => e.toLowerCase()),
        label,
      }),
    )
    .max(20, 'at most 20 e-mail addresses'),
  phones: z
    .array(
      z.object({
        phone: z.string().trim().min(3, 'phone is too short').max(50, 'phone must be at most 50 characters'),
        label,
      }),
    )
    .max(20, 'at most 20 phone numbers'),
  companyId: ref('company', objectId).nullable().describe('primary company; also linked in /companies/:id/people'),
  customFields: nameValueCustomFields.describe('array of { name, value } (an object map is accepted and converted)'),
  tags: tagsField,
  avatar: imageField,
  profileUrl: profileUrlField,
  timeZone: timeZoneField,
};

export const createPersonBody = z
  .object({ firstName: requiredText(200) })
  .extend(z.object(personFields).partial().shape);
/** PUT is a partial update: only the given keys change; customFields merges by name (null removes a key). */
export const updatePersonBody = createPersonBody.partial();

export const listPeopleQuery = listQuery({
  maxLimit: 500,
  fields: PERSON_FIELDS,
  extra: {
    q: z.string().trim().max(200).optional().describe('case-insensitive match on names, title, e-mails, phones'),
    companyId: objectId.optional(),
  },
});

export const getPersonQuery = z.object({ fields: fieldsQuery(PERSON_FIELDS).optional() });

/** What the person service writes: the parsed create/update body (create also requires firstName). */
export type PersonInput = z.infer<typeof updatePersonBody>;

const labelView = z.string().nullable().optional().describe('e.g. work, home; absent when none was given');

export const personView = z.object({
  _id: idView,
  firstName: z.string(),
  lastName: z.string().nullable(),
  title: z.string().nullable(),
  emails: z.array(z.object({ email: z.string(), label: labelView })),
  phones: z.array(z.object({ phone: z.string(), label: labelView })),
  companyId: idView.nullable().describe('primary company'),
  customFields: z.array(nameValueView),
  tags: z.array(z.string()),
  avatar: z.string().nullable().describe('image URL'),
  ownerId: idView.nullable().describe('user who created the person'),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
  profileUrl: z.string().nullable().describe('professional-network profile URL (canonical form)'),
  timeZone: z.string().nullable().describe('IANA time zone; sequence sends follow its local time'),
});
export type PersonView = z.infer<typeof personView>;

/** A person as GET/list answer it: the full view, or a projection (`_id` plus the chosen fields). */
export const personReadView = readViewOf(personView);
