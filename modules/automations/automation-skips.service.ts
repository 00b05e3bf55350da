/** Reading the skip log of one automation (issue 27), newest first. */
import type { Ctx } from '../../platform/context';
import { plainOf } from '../../platform/shared/views';
import { normalizeEntity } from './triggers';
import { getAutomation } from './automations.service';
import { AutomationSkip } from './engine/skip.entity';
import type { ListSkipsQuery, SkipView } from './engine/skips.schemas';

const SKIP_FIELDS = [
  '_id',
  'automationId',
  'createdAt',
  'triggerType',
  'triggerKey',
  'entityType',
  'entityId',
  'reason',
  'message',
  'details',
] as const;
const serialize = (s: AutomationSkip): SkipView => plainOf(s, SKIP_FIELDS);

export async function listSkips(ctx: Ctx, automationId: string, query: ListSkipsQuery) {
  await getAutomation(ctx, automationId);
  // `People`, `contact` … name the same records as `person` (skips store the normalised name).
  const entityType = query.entityType ? (normalizeEntity(query.entityType) ?? query.entityType) : undefined;
  const where = {
    automationId,
    ...(entityType ? { entityType } : {}),
    ...(query.entityId ? { entityId: query.entityId } : {}),
    ...(query.reason ? { reason: query.reason } : {}),
  };
  const [items, total] = await ctx.em.findAndCount(AutomationSkip, where, {
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
    orderBy: { _id: 'desc' },
  });
  return { items: items.map(serialize), total };
}
