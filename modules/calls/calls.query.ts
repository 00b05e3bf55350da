import type { Ctx } from '../../platform/context';
import { findSyncPage } from '../../platform/shared/record-service';
import { dateWhere, likeAny, type PageRequest } from '../../platform/shared/listing';
import { Call, type CallDirection, type CallStatus } from './call.entity';
import { LIST_CONVERSATION_TURNS, serializeCall } from './call-view';

export interface CallListQuery extends PageRequest {
  direction?: CallDirection;
  status?: CallStatus;
  companyId?: string;
  personId?: string;
  leadId?: string;
  dealId?: string;
  ownerId?: string;
  q?: string;
  updatedSince?: Date;
  /** dateFrom/dateTo filter startedAt. */
  dateFrom?: Date;
  dateTo?: Date;
}

export async function listCalls(ctx: Ctx, query: CallListQuery) {
  const where: Record<string, unknown> = {};
  for (const key of ['direction', 'status', 'companyId', 'personId', 'leadId', 'dealId', 'ownerId'] as const)
    if (query[key]) where[key] = query[key];
  const range = dateWhere({ dateFrom: query.dateFrom, dateTo: query.dateTo }).createdAt;
  if (range) where.startedAt = range;
  if (query.updatedSince) where.updatedAt = { $gte: query.updatedSince };
  if (query.q) where.$or = likeAny(query.q, ['subject', 'phone', 'notes', 'outcome']);
  const { items, total } = await findSyncPage(ctx, Call, where, query, 'startedAt');
  return { items: items.map((c) => serializeCall(c, { maxTurns: LIST_CONVERSATION_TURNS })), total };
}
