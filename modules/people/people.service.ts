import { raw } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { createRecord } from '../../platform/shared/records';
import { validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { emitRecordCreated, emitRecordUpdated, recordSystemActivity } from '../timeline';
import {
  Company,
  serializeCompany,
  type ImageResolver,
  type LinkResultView,
  type UnlinkResultView,
} from '../companies';
import { applyPatch, normalizeTags } from '../../platform/shared/changes';
import { asRecord, mergeNameValues, toNameValueArray } from '../../platform/shared/custom-fields';
import { assertCustomFieldValues } from '../custom-fields';
import { dateWhere, findPage, likeAny, type DateFilterInput, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { PreviewResult } from '../../platform/shared/preview';
import {
  deleteWithDetach,
  findSyncPage,
  getRecord,
  previewAnswer,
  readRecord,
} from '../../platform/shared/record-service';
import { CompanyPerson, Person } from './person.entity';
import { PERSON_FIELDS, type PersonInput, type PersonView } from './people.schemas';

export const serializePerson = (p: Person): PersonView => plainOf(p, PERSON_FIELDS);

export function readPerson(ctx: Ctx, id: string): Promise<PersonView> {
  return readRecord(ctx, Person, id, 'person', serializePerson);
}

export function getPerson(ctx: Ctx, id: string): Promise<Person> {
  return getRecord(ctx, Person, id, 'person');
}

async function assertCompany(ctx: Ctx, companyId: string | null | undefined): Promise<void> {
  if (!companyId) return;
  if (!(await ctx.em.count(Company, { _id: companyId })))
    throw validation(`companyId: no company with id ${companyId}`);
}

function link(ctx: Ctx, companyId: string, personId: string): void {
  ctx.em.persist(createRecord(ctx, CompanyPerson, { companyId, personId }));
}

const personName = (p: Person): string => [p.firstName, p.lastName].filter(Boolean).join(' ');

const feedLink = (p: Person) => ({ personId: p._id, entityType: 'person', entityId: p._id });

export async function createPerson(
  ctx: Ctx,
  input: PersonInput & { firstName: string },
  opts: { preview: boolean; images: ImageResolver },
): Promise<PersonView | PreviewResult> {
  await assertCompany(ctx, input.companyId);
  await assertCustomFieldValues(ctx, 'person', asRecord(input.customFields ?? {}), { requireAll: true });
  const { customFields, tags, avatar, ...scalars } = input;
  const person = createRecord(ctx, Person, {
    ...scalars,
    emails: input.emails ?? [],
    phones: input.phones ?? [],
    customFields: toNameValueArray(customFields),
    tags: normalizeTags(tags) ?? [],
    ownerId: ctx.actor.userId,
    avatar: avatar === undefined ? null : opts.preview ? avatar || null : await opts.images(ctx, avatar),
  } as Person);
  if (opts.preview) return previewAnswer(ctx, null, serializePerson(person));
  if (person.companyId) link(ctx, person.companyId, person._id);
  await emitRecordCreated(
    ctx,
    person,
    { type: 'person_created', entityType: 'person', payload: { person: serializePerson(person) } },
    { link: { ...feedLink(person), companyId: person.companyId }, summary: `Person ${personName(person)} created` },
  );
  return serializePerson(person);
}

export async function updatePerson(
  ctx: Ctx,
  id: string,
  input: PersonInput,
  opts: { preview: boolean; images: ImageResolver },
): Promise<PersonView | PreviewResult> {
  const person = await getPerson(ctx, id);
  if (input.companyId !== undefined && input.companyId !== person.companyId) await assertCompany(ctx, input.companyId);
  if (input.customFields !== undefined) await assertCustomFieldValues(ctx, 'person', asRecord(input.customFields));
  const current = serializePerson(person);
  const { customFields, tags, avatar, ...scalars } = input;
  const patch: Partial<Person> = {
    ...(scalars as Partial<Person>),
    ...(customFields !== undefined ? { customFields: mergeNameValues(person.customFields, customFields) } : {}),
    ...(tags !== undefined ? { tags: normalizeTags(tags) } : {}),
    ...(avatar !== undefined ? { avatar: opts.preview ? avatar || null : await opts.images(ctx, avatar) } : {}),
  };
  const beforeTags = [...person.tags];
  const changes = applyPatch(person, patch);
  if (opts.preview) return previewAnswer(ctx, current, serializePerson(person));
  if (changes.companyId && person.companyId) {
    const exists = await ctx.em.count(CompanyPerson, { companyId: person.companyId, personId: person._id });
    if (!exists) link(ctx, person.companyId, person._id);
  }
  const payload = () => ({ person: serializePerson(person), changes });
  await emitRecordUpdated(
    ctx,
    person,
    changes,
    beforeTags,
    { type: 'person_updated', entityType: 'person', payload },
    { link: feedLink(person), summary: `Person ${personName(person)} updated` },
  );
  return serializePerson(person);
}

/** What deleting a person does to the records that reference it (the deals module's: their person reference). */
export type DetachPersonRefs = (ctx: Ctx, personId: string) => Promise<void>;

/**
 * Deletes a person, its company links and (through `detachRefs`, in the same transaction, before the delete) the
 * references other records hold to it. People import nothing of deals (deals reference people): the router passes
 * the deals module's detach.
 */
export async function deletePerson(ctx: Ctx, id: string, detachRefs: DetachPersonRefs): Promise<void> {
  const person = await getPerson(ctx, id);
  const ws = ctx.actor.workspaceId;
  await deleteWithDetach(
    ctx,
    person,
    { type: 'person_deleted', entityType: 'person', payload: { person: serializePerson(person) } },
    async () => {
      await ctx.em.nativeDelete(CompanyPerson, { workspaceId: ws, personId: id });
      await detachRefs(ctx, id);
    },
  );
}

export interface PersonListQuery extends PageRequest, DateFilterInput {
  q?: string;
  companyId?: string;
}

export async function listPeople(ctx: Ctx, query: PersonListQuery) {
  const where: Record<string, unknown> = { ...dateWhere(query) };
  if (query.companyId) where.companyId = query.companyId;
  if (query.q) {
    // emails/phones are jsonb arrays: match their text form.
    where.$or = likeAny(query.q, [
      'firstName',
      'lastName',
      'title',
      raw((alias) => `${alias}.emails::text`),
      raw((alias) => `${alias}.phones::text`),
    ]);
  }
  const { items, total } = await findSyncPage(ctx, Person, where, query);
  return { items: items.map(serializePerson), total };
}

/** People linked to a company (through the link table, which includes their primary company). */
export async function listCompanyPeople(ctx: Ctx, companyId: string, page: PageRequest) {
  const links = await ctx.em.find(CompanyPerson, { companyId }, { fields: ['personId'] });
  const { items, total } = await findPage(ctx.em, Person, { _id: { $in: links.map((l) => l.personId) } }, page, {
    createdAt: 'desc',
  });
  return { items: items.map(serializePerson), total };
}

export async function listPersonCompanies(ctx: Ctx, personId: string, page: PageRequest) {
  const links = await ctx.em.find(CompanyPerson, { personId }, { fields: ['companyId'] });
  const { items, total } = await findPage(ctx.em, Company, { _id: { $in: links.map((l) => l.companyId) } }, page, {
    name: 'asc',
  });
  return { items: items.map(serializeCompany), total };
}

/** The company (404) and the person (400: a body field) of a link or unlink. */
async function linkParties(
  ctx: Ctx,
  companyId: string,
  personId: string,
): Promise<{ company: Company; person: Person }> {
  const company = await getRecord(ctx, Company, companyId, 'company');
  const person = await ctx.em.findOne(Person, { _id: personId });
  if (!person) throw validation(`personId: no person with id ${personId}`);
  return { company, person };
}

/** person_updated for a change of the person's primary company (already assigned) from `from`. */
function emitPrimaryCompany(ctx: Ctx, person: Person, from: string | null): void {
  emit(ctx, {
    type: 'person_updated',
    entityType: 'person',
    entityId: person._id,
    payload: { person: serializePerson(person), changes: { companyId: { from, to: person.companyId } } },
  });
}

/** The link's or unlink's row on the company's feed, then the flush. */
async function recordLinkChange(
  ctx: Ctx,
  companyId: string,
  personId: string,
  type: 'person_linked' | 'person_unlinked',
  summary: string,
): Promise<void> {
  recordSystemActivity(ctx, { companyId, personId, entityType: 'company', entityId: companyId }, type, summary);
  await ctx.em.flush();
}

/** Links a person to a company; the first company linked becomes the person's primary one. */
export async function linkPerson(ctx: Ctx, companyId: string, personId: string): Promise<LinkResultView> {
  const { company, person } = await linkParties(ctx, companyId, personId);
  if (await ctx.em.count(CompanyPerson, { companyId, personId })) return { linked: false };
  link(ctx, companyId, personId);
  if (!person.companyId) {
    person.companyId = companyId;
    emitPrimaryCompany(ctx, person, null);
  }
  await recordLinkChange(ctx, companyId, personId, 'person_linked', `${personName(person)} linked to ${company.name}`);
  return { linked: true };
}

/** Unlinks; if it was the primary company, another linked company (or none) takes its place. */
export async function unlinkPerson(ctx: Ctx, companyId: string, personId: string): Promise<UnlinkResultView> {
  const { company, person } = await linkParties(ctx, companyId, personId);
  const row = await ctx.em.findOne(CompanyPerson, { companyId, personId });
  if (!row) return { unlinked: false };
  ctx.em.remove(row);
  if (person.companyId === companyId) {
    const other = await ctx.em.findOne(
      CompanyPerson,
      { personId, companyId: { $ne: companyId } },
      { orderBy: { createdAt: 'asc' } },
    );
    person.companyId = other?.companyId ?? null;
    emitPrimaryCompany(ctx, person, companyId);
  }
  const summary = `${personName(person)} unlinked from ${company.name}`;
  await recordLinkChange(ctx, companyId, personId, 'person_unlinked', summary);
  return { unlinked: true };
}

/** A deleted company's people links (deleteCompany's unlinkPeople): its link rows, and its people's primary company. */
export async function unlinkCompanyPeople(ctx: Ctx, companyId: string): Promise<void> {
  const ws = ctx.actor.workspaceId;
  await ctx.em.nativeDelete(CompanyPerson, { workspaceId: ws, companyId });
  await ctx.em.nativeUpdate(Person, { workspaceId: ws, companyId }, { companyId: null });
}
