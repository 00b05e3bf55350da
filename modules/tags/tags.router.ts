import type { RouteFactory } from '../../platform/http/app-deps';
import { bulkTags, listTags } from './tags.service';
import { ok, pageOf, route } from '../../platform/http/registry';
import { bulkTagsBody, bulkTagsResultView, listTagsQuery, MAX_TAGS_PAGE, tagCountView } from './tags.schemas';
import { envelopes } from '../../platform/http/crud';

const section = 'Tags';

export const tagsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/tags',
    section,
    access: { scopes: ['read'] },
    query: listTagsQuery,
    summary: `Unique tags with the number of records carrying each ({ data: [{ tag, count }], page, limit, total }; total counts unique tags), sorted by tag; all of company, person, lead and deal when entityType is omitted. limit up to ${MAX_TAGS_PAGE}.`,
    response: envelopes.list(tagCountView),
    handler: async ({ ctx, query }) => pageOf(await listTags(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/tags/bulk',
    section,
    access: { scopes: ['write'] },
    body: bulkTagsBody,
    summary:
      'Add and remove tags on up to 500 records of one type in one transaction; every id must exist (400 lists the missing ones, nothing changes). Emits tag_added/tag_removed per record and tag changed.',
    response: envelopes.data(bulkTagsResultView),
    handler: async ({ ctx, body }) => ok(await bulkTags(ctx, body)),
  }),
];
