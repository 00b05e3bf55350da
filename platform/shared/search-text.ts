import { z } from 'zod';

const SEARCH_Q_MIN = 2;
const SEARCH_Q_MAX = 200;
const SEARCH_LIMIT_MAX = 50;

/**
 * The search text and hit count every search route takes (GET /search, GET /custom-objects/search): one rule for
 * both, here because the custom objects' search is served by search/ but mounted with its module's routes.
 */
export const searchTextParams = {
  q: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a single string') })
    .trim()
    .min(SEARCH_Q_MIN, `must be at least ${SEARCH_Q_MIN} characters`)
    .max(SEARCH_Q_MAX, `must be at most ${SEARCH_Q_MAX} characters`)
    .describe('search text (typo-tolerant; the last word matches as a prefix)'),
  limit: z.coerce
    .number({ message: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(SEARCH_LIMIT_MAX, `limit must be at most ${SEARCH_LIMIT_MAX}`)
    .default(10)
    .describe(`hits per type (default 10, max ${SEARCH_LIMIT_MAX})`),
};
