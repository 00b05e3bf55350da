import {
  MeiliSearchError,
  MeiliSearchRequestError,
  MeiliSearchRequestTimeOutError,
  type MeiliSearch,
} from 'meilisearch';
import type { Ctx } from '../platform/context';
import type { Logger } from '../platform/logger';
import { searchPostgres } from './fallback';
import type { IndexFreshness } from './freshness';
import { searchIndexes, type SearchResults } from './query';

export interface SearchInput {
  q: string;
  types: readonly string[];
  limit: number;
}

export interface SearchService {
  /** Meilisearch first; Postgres (`degraded: true`) when it cannot answer. */
  search(ctx: Ctx, input: SearchInput): Promise<SearchResults>;
}

export interface SearchServiceOptions {
  client: MeiliSearch;
  prefix: string;
  log: Logger;
  /** After a connection failure, go straight to Postgres for this long (default 5 s). */
  breakerMs?: number;
  /** When set, an index that is behind Postgres for the workspace answers from Postgres too (degraded). */
  freshness?: IndexFreshness;
}

const unreachable = (err: unknown): boolean =>
  err instanceof MeiliSearchRequestError || err instanceof MeiliSearchRequestTimeOutError;

export function createSearchService(opts: SearchServiceOptions): SearchService {
  const breakerMs = opts.breakerMs ?? 5000;
  let skipUntil = 0;
  return {
    async search(ctx, input) {
      const req = { workspaceId: ctx.actor.workspaceId, ...input };
      if (Date.now() >= skipUntil) {
        try {
          const [results, behind] = await Promise.all([
            searchIndexes(opts.client, opts.prefix, req),
            // A failed check (Meilisearch's task list unreachable) is treated like a failed search.
            opts.freshness ? opts.freshness.behind(ctx.em, req.workspaceId) : null,
          ]);
          if (!behind) return results;
          // Right after an outage the index answers before it has caught up: partial results are worse than slow ones.
          opts.log.info(
            { workspaceId: req.workspaceId, reason: behind },
            'search: index behind, answering from Postgres',
          );
          return await searchPostgres(ctx.em, req);
        } catch (err) {
          if (!(err instanceof MeiliSearchError)) throw err;
          // A down server would cost every request its timeout: skip it for a moment.
          if (unreachable(err)) skipUntil = Date.now() + breakerMs;
          opts.log.warn(
            { err: err.message, workspaceId: req.workspaceId },
            'search: Meilisearch unavailable, answering from Postgres',
          );
        }
      }
      return searchPostgres(ctx.em, req);
    },
  };
}
