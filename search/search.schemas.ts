import { z } from 'zod';
import { SEARCH_TYPES, SPEC_SEARCH_TYPES } from './registry';
import { idView } from '../platform/shared/views';

export const SEARCH_Q_MIN = 2;
export const SEARCH_Q_MAX = 200;
export const SEARCH_LIMIT_MAX = 50;

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
  q: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a single string') })
    .trim()
    .min(SEARCH_Q_MIN, `must be at least ${SEARCH_Q_MIN} characters`)
    .max(SEARCH_Q_MAX, `must be at most ${SEARCH_Q_MAX} characters`)
    .describe('search text (typo-tolerant; the last word matches as a prefix)'),
  types: typesParam.optional().describe(`comma list of ${SEARCH_TYPES.join(', ')}; default all`),
  limit: z.coerce
    .number({ message: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(SEARCH_LIMIT_MAX, `limit must be at most ${SEARCH_LIMIT_MAX}`)
    .default(10)
    .describe(`hits per type (default 10, max ${SEARCH_LIMIT_MAX})`),
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
