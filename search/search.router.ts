import type { RouteFactory } from '../platform/http/app-deps';
import { SEARCH_TYPES } from './registry';
import { ok, route } from '../platform/http/registry';
import { envelopes } from '../platform/http/crud';
import { searchQuery, searchResultsView, type SearchResultsView } from './search.schemas';

const DESCRIPTION = [
  'Response: `{ data: { query, results: { <type>: { hits: [{ _id, type, title, subtitle, snippet }], total } }, degraded? } }`.',
  `\`results\` has one entry per requested type (default every searchable type, in the order ${SEARCH_TYPES.join(', ')});`,
  '`total` is the number of matches of that type, counted up to 1000. `title` and `subtitle`',
  'are plain text; `snippet` is an HTML fragment: the best matching attribute cropped',
  'around the match, record text escaped, matched words in `<mark>…</mark>`. Typo-tolerant (one typo from 4',
  'letters, two from 8; not in phone numbers or registry ids) and prefix-matching on the last word.',
  "Only the caller's workspace is searched. When Meilisearch is unavailable the answer comes from Postgres",
  '(case-insensitive substring match over the same fields, newest first) with `degraded: true`;',
  'so it does while the index is behind after a Meilisearch outage or restart (changes of the workspace that failed to index',
  'and wait for their retry, or Meilisearch still applying writes accepted more than 2 s ago), so an answer is never silently partial.',
].join(' ');

export const searchRoutes: RouteFactory = (deps) => {
  const service = deps.search;
  return [
    route({
      method: 'GET',
      path: '/api/v1/search',
      section: 'Search',
      access: { scopes: ['read'] },
      query: searchQuery,
      summary: 'Search companies, people, leads, deals, … of the workspace at once, grouped by type.',
      description: DESCRIPTION,
      response: envelopes.data(searchResultsView),
      handler: async ({ ctx, query }) => {
        const results: SearchResultsView = await service.search(ctx, {
          q: query.q,
          types: query.types?.length ? query.types : SEARCH_TYPES,
          limit: query.limit,
        });
        return ok(results);
      },
    }),
  ];
};
