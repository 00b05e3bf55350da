import { z } from 'zod';
import { LIST_ENTITY_TYPES } from './list.entity';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { dateTimeView, idView } from '../../platform/shared/views';

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

/** A list as the API shows it, with the number of items it holds. */
export const listView = z.object({
  _id: idView,
  name: z.string(),
  entityType: z.enum(LIST_ENTITY_TYPES).describe('the type of every record on the list'),
  description: z.string().nullable(),
  ownerId: idView.nullable().describe('user id of the creator'),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
  itemCount: z.number().int().min(0),
});
export type ListView = z.infer<typeof listView>;

/** One item of a list, with the record's summary. */
export const listItemView = z.object({
  entityId: idView,
  entityType: z.enum(LIST_ENTITY_TYPES),
  addedAt: dateTimeView,
  addedBy: idView.nullable().describe('user id'),
  entity: z
    .object({ _id: idView })
    .catchall(z.unknown())
    .describe("the record's summary fields (as its own list shows them with view=summary)"),
});
export type ListItemView = z.infer<typeof listItemView>;

export const listItemsAddedView = z.object({
  added: z.number().int().min(0),
  alreadyPresent: z.number().int().min(0).describe('ids already on the list (not added again)'),
});
export const listItemsRemovedView = z.object({
  removed: z.number().int().min(0),
  notPresent: z.number().int().min(0).describe('ids that were not on the list'),
});
