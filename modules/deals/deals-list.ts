import { raw, type QueryOrderKeys } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import {
  dateWhere,
  findPage,
  likePattern,
  type DateFilterInput,
  type PageRequest,
} from '../../platform/shared/listing';
import { findPageRows } from '../../platform/orm/lean-rows';
import { Deal, type DealStatus } from './deal.entity';
import { DEAL_SORT_FIELDS } from './deals.schemas';
import { serializeDeal } from './deals.service';

export type DealSortField = (typeof DEAL_SORT_FIELDS)[number];

export interface DealListQuery extends PageRequest, DateFilterInput {
  q?: string;
  status?: DealStatus;
  flowId?: string;
  stageId?: string;
  ownerId?: string;
  sortBy?: DealSortField;
  sortOrder?: 'asc' | 'desc';
}

// Text sorts read naturally ascending; numbers and dates newest/largest first.
const DEFAULT_ORDER: Record<DealSortField, 'asc' | 'desc'> = {
  title: 'asc',
  status: 'asc',
  stage: 'asc',
  value: 'desc',
  updatedAt: 'desc',
  createdAt: 'desc',
  lostDate: 'desc',
  wonDate: 'desc',
};
const NULLABLE = new Set<DealSortField>(['value', 'lostDate', 'wonDate', 'stage']);

/** `stage` sorts by the stage's position (its `order`) in its pipeline; titles sort case-insensitively. */
function sortKey(field: DealSortField): string {
  if (field === 'title') return raw((alias) => `lower(${alias}."title")`) as unknown as string;
  if (field === 'stage')
    return raw(
      (alias) => `(select s."order" from "flow_stage" s where s."id" = ${alias}."stage_id")`,
    ) as unknown as string;
  return field;
}

export async function listDeals(ctx: Ctx, query: DealListQuery) {
  const where: Record<string, unknown> = { ...dateWhere(query) };
  if (query.status) where.status = query.status;
  if (query.flowId) where.flowId = query.flowId;
  if (query.stageId) where.stageId = query.stageId;
  if (query.ownerId) where.ownerId = query.ownerId;
  if (query.q) where.title = { $ilike: likePattern(query.q) };
  // Unfiltered and in creation order (paging through all): one prepared statement for the page and the total, no ORM.
  if (!Object.keys(where).length && !query.sortBy) {
    const order = { prop: 'createdAt', dir: query.sortOrder ?? 'desc' } as const;
    const { items, total } = await findPageRows(ctx, Deal, order, query);
    return { items: items.map(serializeDeal), total };
  }
  let orderBy: Record<string, QueryOrderKeys<false>>[];
  if (query.sortBy) {
    const dir = query.sortOrder ?? DEFAULT_ORDER[query.sortBy];
    // Deals without a value or date go last in either direction.
    orderBy = [{ [sortKey(query.sortBy)]: NULLABLE.has(query.sortBy) ? `${dir} nulls last` : dir }, { _id: dir }];
  } else if (query.updatedSince) {
    orderBy = [{ updatedAt: query.sortOrder ?? 'asc' }, { _id: query.sortOrder ?? 'asc' }];
  } else {
    orderBy = [{ createdAt: query.sortOrder ?? 'desc' }, { _id: query.sortOrder ?? 'desc' }];
  }
  const [items, total] = await ctx.em.findAndCount(Deal, where, {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
    orderBy: orderBy as never,
  });
  return { items: items.map(serializeDeal), total };
}

/** The deals of a company or with a person as contact (the companies' and people's `/:id/deals` lists). */
export async function listDealsFor(ctx: Ctx, where: { company?: string; personRef?: string }, page: PageRequest) {
  const { items, total } = await findPage(ctx.em, Deal, where, page, { createdAt: 'desc' });
  return { items: items.map(serializeDeal), total };
}
