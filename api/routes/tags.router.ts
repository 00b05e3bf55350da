import type { RouteFactory } from '../app';
import { bulkTags, listTags } from '../../domain/tags/tags.service';
import { ok, route } from '../http/registry';
import { bulkTagsBody, listTagsQuery } from './tags.schemas';

const section = 'Tags';

export const tagsRoutes: RouteFactory = () => [
  route({
    method: 'GET', path: '/api/v1/tags', section, access: { scopes: ['read'] }, query: listTagsQuery,
    summary: 'Unique tags with the number of records carrying each ({ data: [{ tag, count }] }), sorted by tag; all of company, person, lead and deal when entityType is omitted.',
    handler: async ({ ctx, query }) => {
      const tags = await listTags(ctx, query.entityType);
      return { status: 200, body: { data: tags, total: tags.length } };
    },
  }),
  route({
    method: 'POST', path: '/api/v1/tags/bulk', section, access: { scopes: ['write'] }, body: bulkTagsBody,
    summary: 'Add and remove tags on up to 500 records of one type in one transaction; every id must exist (400 lists the missing ones, nothing changes). Emits tag_added/tag_removed per record and tag changed.',
    handler: async ({ ctx, body }) => ok(await bulkTags(ctx, body)),
  }),
];
