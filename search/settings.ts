import type { MeiliSearch, Settings } from 'meilisearch';
import { isMeiliApiError } from './meili';
import { indexUid, SEARCH_DEFINITIONS } from './registry';
import type { AnyDefinition } from './types/definition';

/** Matches counted per type (Meilisearch's maxTotalHits; degraded mode caps its count the same way). */
export const MAX_TOTAL_HITS = 1000;

/** Settings tasks can queue behind a large indexing job: wait generously. */
export const SETTINGS_WAIT = { timeout: 120_000, interval: 50 };

/**
 * Index settings of a type, kept in code and applied (and awaited) before documents are loaded.
 * workspaceId and the reference ids are equality-only filters: the workspace filter of every
 * query, and the dependents lookup after a referenced record is deleted.
 */
export function settingsFor(def: AnyDefinition): Settings {
  const searchable = def.fields.map((f) => f.attribute);
  const idAttributes = [
    ...(def.references ?? []).map((r) => r.idAttribute),
    ...(def.parents ?? []).map((r) => r.idAttribute),
  ];
  return {
    searchableAttributes: searchable,
    displayedAttributes: [
      'id',
      'title',
      'subtitle',
      ...searchable.filter((a) => a !== 'title'),
      ...(def.parents ?? []).map((p) => p.idAttribute),
    ],
    filterableAttributes: [
      {
        attributePatterns: ['workspaceId', ...new Set(idAttributes)],
        features: { facetSearch: false, filter: { equality: true, comparison: false } },
      },
    ],
    sortableAttributes: ['updatedAt'],
    // Meilisearch's defaults, then the most recently changed record first among equal matches.
    rankingRules: ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness', 'updatedAt:desc'],
    typoTolerance: {
      enabled: true,
      // One typo from 4 letters (default 5): short company names like "acme" are common in a CRM.
      minWordSizeForTypos: { oneTypo: 4, twoTypos: 8 },
      disableOnAttributes: def.fields.filter((f) => f.exact).map((f) => f.attribute),
      disableOnNumbers: true,
    },
    pagination: { maxTotalHits: MAX_TOTAL_HITS },
    // Words of a query count as close when they are in the same attribute (names, e-mails are
    // short): faster searches and indexing than word-by-word distances, same results in practice.
    proximityPrecision: 'byAttribute',
    // A safety net for pathological queries on a busy server: best results found by then.
    searchCutoffMs: 200,
  };
}

/** Creates the index when missing and applies the type's settings; waits for both. */
export async function ensureIndex(client: MeiliSearch, uid: string, def: AnyDefinition): Promise<void> {
  try {
    await client.getRawIndex(uid);
  } catch (err) {
    if (!isMeiliApiError(err, 'index_not_found')) throw err;
    const task = await client.createIndex(uid, { primaryKey: 'id' }).waitTask(SETTINGS_WAIT);
    if (task.status === 'failed' && task.error?.code !== 'index_already_exists')
      throw new Error(`creating index ${uid} failed: ${task.error?.message}`);
  }
  const task = await client.index(uid).updateSettings(settingsFor(def)).waitTask(SETTINGS_WAIT);
  if (task.status !== 'succeeded')
    throw new Error(`settings of index ${uid}: ${task.status} ${task.error?.message ?? ''}`.trim());
}

/** Every registered type's index under `prefix`. */
export async function ensureIndexes(
  client: MeiliSearch,
  prefix: string,
  defs: readonly AnyDefinition[] = SEARCH_DEFINITIONS,
): Promise<void> {
  for (const def of defs) await ensureIndex(client, indexUid(prefix, def.type), def);
}
