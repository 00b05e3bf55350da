import { z } from 'zod';
import { SEARCH_TYPES, SPEC_SEARCH_TYPES } from './registry';
import { idView } from '../platform/shared/views';
import { searchTextParams } from '../platform/shared/search-text';

const typesParam = z
  .string()
  .transform((s) => [
    ...new Set(
      s
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ])
  .superRefine((list, ctx) => {
    for (const type of list) {
      if (SEARCH_TYPES.includes(type)) continue;
      const notYet = (SPEC_SEARCH_TYPES as readonly string[]).includes(type);
      ctx.addIssue({
        code: 'custom',
        message: notYet
          ? `type "${type}" is not searchable yet; searchable types: ${SEARCH_TYPES.join(', ')}`
          : `unknown type "${type}"; searchable types: ${SEARCH_TYPES.join(', ')}`,
      });
      return;
    }
  });

export const searchQuery = z.object({
  q: searchTextParams.q,
  types: typesParam.optional().describe(`comma list of ${SEARCH_TYPES.join(', ')}; default all`),
  limit: searchTextParams.limit,
});

export const searchHitView = z.object({
  _id: idView,
  type: z.string().describe('the record type of the hit'),
  title: z.string().describe('plain text'),
  subtitle: z.string().nullable().describe('plain text'),
  snippet: z.string().describe('HTML fragment: record text escaped, matched words in <mark>…</mark>'),
});

export const searchTypeResultsView = z.object({
  hits: z.array(searchHitView),
  total: z.number().int().min(0).describe('matches of this type, counted up to 1000'),
});

/** GET /search: hits grouped by type. */
export const searchResultsView = z.object({
  query: z.string(),
  results: z
    .record(z.string(), searchTypeResultsView)
    .describe(`one entry per requested type (${SEARCH_TYPES.join(', ')})`),
  degraded: z
    .literal(true)
    .optional()
    .describe('present when the answer comes from Postgres (Meilisearch unavailable or behind)'),
});
export type SearchResultsView = z.infer<typeof searchResultsView>;
