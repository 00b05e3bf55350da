import { z } from 'zod';
import { LIST_ENTITY_TYPES } from './list.entity';
import { pageParams } from '../shared/list-query';
import { clearableText, objectId, requiredText } from '../shared/schemas';

const entityType = z.enum(LIST_ENTITY_TYPES, { message: `must be one of: ${LIST_ENTITY_TYPES.join(', ')}` });
export const MAX_LIST_ITEM_IDS = 500;

export const createListBody = z.object({
  name: requiredText(200),
  entityType,
  description: clearableText(2000).optional(),
});

/** The entity type may be sent only with its current value (checked by the service). */
export const updateListBody = z
  .object({ name: requiredText(200), entityType, description: clearableText(2000) })
  .partial();

export const listListsQuery = z.object({
  ...pageParams(100),
  entityType: entityType.optional(),
  q: z.string().trim().max(200).optional().describe('case-insensitive match on the name'),
});

export const listItemsBody = z.object({
  entityIds: z
    .array(objectId)
    .min(1, 'at least one id is required')
    .max(MAX_LIST_ITEM_IDS, `at most ${MAX_LIST_ITEM_IDS} ids`),
});

export const removeItemsQuery = z.object({ entityId: objectId.optional() });

/** What the service writes: the parsed updateListBody (create bodies add their required fields). */
export type ListInput = z.infer<typeof updateListBody>;
