import type { Ctx } from '../../platform/context';
import { createRecord } from '../../platform/shared/records';
import { emitRecordCreated, emitRecordUpdated } from '../timeline';
import { applyPatch, normalizeTags } from '../../platform/shared/changes';
import { asRecord, mergeNameValues, toNameValueArray } from '../../platform/shared/custom-fields';
import { assertCustomFieldValues } from '../custom-fields';
import { dateWhere, likeAny, type DateFilterInput, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { PreviewResult } from '../../platform/shared/preview';
import {
  deleteWithDetach,
  findSyncPage,
  getRecord,
  previewAnswer,
  readRecord,
} from '../../platform/shared/record-service';
import { findPageRows } from '../../platform/orm/lean-rows';
import { Company } from './company.entity';
import { COMPANY_FIELDS, type CompanyInput, type CompanyView } from './companies.schemas';

/** Turns an image field value (URL, data URL or "") into the stored URL; provided by the API (AppDeps.images). */
export type ImageResolver = (ctx: Ctx, value: string) => Promise<string | null>;

export const serializeCompany = (c: Company): CompanyView => plainOf(c, COMPANY_FIELDS);

export function readCompany(ctx: Ctx, id: string): Promise<CompanyView> {
  return readRecord(ctx, Company, id, 'company', serializeCompany);
}

const feedLink = (c: Company) => ({ companyId: c._id, entityType: 'company', entityId: c._id });

export function getCompany(ctx: Ctx, id: string): Promise<Company> {
  return getRecord(ctx, Company, id, 'company');
}

function scalarFields(input: CompanyInput): Partial<Company> {
  const { customFields: _c, tags: _t, avatar: _a, logoUrl: _l, ...scalars } = input;
  return scalars as Partial<Company>;
}

async function resolveImages(
  ctx: Ctx,
  input: CompanyInput,
  images: ImageResolver,
  preview: boolean,
): Promise<Partial<Company>> {
  const out: Partial<Company> = {};
  // Preview must not fetch or store anything: it shows the value as sent.
  if (input.avatar !== undefined) out.avatar = preview ? input.avatar || null : await images(ctx, input.avatar);
  if (input.logoUrl !== undefined) out.logoUrl = preview ? input.logoUrl || null : await images(ctx, input.logoUrl);
  return out;
}

export async function createCompany(
  ctx: Ctx,
  input: CompanyInput & { name: string },
  opts: { preview: boolean; images: ImageResolver },
): Promise<CompanyView | PreviewResult> {
  await assertCustomFieldValues(ctx, 'company', asRecord(input.customFields ?? {}), { requireAll: true });
  const company = createRecord(ctx, Company, {
    ...scalarFields(input),
    customFields: toNameValueArray(input.customFields),
    tags: normalizeTags(input.tags) ?? [],
    ownerId: ctx.actor.userId,
    ...(await resolveImages(ctx, input, opts.images, opts.preview)),
  } as Company);
  if (opts.preview) return previewAnswer(ctx, null, serializeCompany(company));
  const view = serializeCompany(company);
  await emitRecordCreated(
    ctx,
    company,
    { type: 'company_created', entityType: 'company', payload: { company: view } },
    { link: feedLink(company), summary: `Company ${company.name} created` },
  );
  return serializeCompany(company);
}

export async function updateCompany(
  ctx: Ctx,
  id: string,
  input: CompanyInput,
  opts: { preview: boolean; images: ImageResolver },
): Promise<CompanyView | PreviewResult> {
  const company = await getCompany(ctx, id);
  if (input.customFields !== undefined) await assertCustomFieldValues(ctx, 'company', asRecord(input.customFields));
  const current = serializeCompany(company);
  const patch: Partial<Company> = {
    ...scalarFields(input),
    ...(input.customFields !== undefined
      ? { customFields: mergeNameValues(company.customFields, input.customFields) }
      : {}),
    ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
    ...(await resolveImages(ctx, input, opts.images, opts.preview)),
  };
  const beforeTags = [...company.tags];
  const changes = applyPatch(company, patch);
  if (opts.preview) return previewAnswer(ctx, current, serializeCompany(company));
  const payload = () => ({ company: serializeCompany(company), changes });
  await emitRecordUpdated(
    ctx,
    company,
    changes,
    beforeTags,
    { type: 'company_updated', entityType: 'company', payload },
    { link: feedLink(company), summary: `Company ${company.name} updated` },
  );
  return serializeCompany(company);
}

/** Removes a company's links to people in the deleting transaction (the people module's unlinkCompanyPeople). */
export type UnlinkCompanyPeople = (ctx: Ctx, companyId: string) => Promise<void>;

/** Clears the deals' references to a deleted company in the deleting transaction (the deals module's detach). */
export type DetachCompanyDeals = (ctx: Ctx, companyId: string) => Promise<void>;

/**
 * Deleting a company unlinks its people and deals; their own records stay. People and deals depend on companies,
 * so the caller passes the people module's unlink and the deals module's detach (companies imports nothing of
 * either: no import cycle).
 */
export async function deleteCompany(
  ctx: Ctx,
  id: string,
  unlinkPeople: UnlinkCompanyPeople,
  detachDeals: DetachCompanyDeals,
): Promise<void> {
  const company = await getCompany(ctx, id);
  await deleteWithDetach(
    ctx,
    company,
    { type: 'company_deleted', entityType: 'company', payload: { company: serializeCompany(company) } },
    async () => {
      await unlinkPeople(ctx, id);
      await detachDeals(ctx, id);
    },
  );
}

export interface CompanyListQuery extends PageRequest, DateFilterInput {
  q?: string;
}

export async function listCompanies(ctx: Ctx, query: CompanyListQuery) {
  const where: Record<string, unknown> = { ...dateWhere(query) };
  // Unfiltered (paging through all): one prepared statement for the page and the total, no ORM.
  if (!query.q && !Object.keys(where).length) {
    const { items, total } = await findPageRows(ctx, Company, { prop: 'createdAt', dir: 'desc' }, query);
    return { items: items.map(serializeCompany), total };
  }
  if (query.q) where.$or = likeAny(query.q, ['name', 'email', 'cvr', 'city', 'website']);
  const { items, total } = await findSyncPage(ctx, Company, where, query);
  return { items: items.map(serializeCompany), total };
}
