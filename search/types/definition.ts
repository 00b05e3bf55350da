import type { EntitySchema } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/** What every indexed row has (tenantProps). */
export interface IndexedRow {
  _id: string;
  workspaceId: string;
  updatedAt: Date;
}

/** Titles of referenced records, by the reference's `nameAttribute` (e.g. companyName). */
export type ReferenceNames = Record<string, string | null>;

/** SQL expression for degraded-mode matching; `col` turns an entity property into `alias.column`. */
export type PgExpression = (col: (property: string) => string) => string;

/** One searchable text attribute of a document, in ranking order. */
export interface SearchField<R> {
  attribute: string;
  value(row: R, names: ReferenceNames, prepared?: unknown): string | string[] | null | undefined;
  /**
   * How degraded mode (Postgres ILIKE) matches this attribute: entity properties (json and array
   * columns are matched as text), SQL expressions, or `reference` (matched through the referenced
   * type's title). Omitted: not matched in degraded mode.
   */
  pg?: Array<string | PgExpression> | 'reference';
  /** Identifiers (numbers, registry ids, phone numbers) must match exactly: no typo tolerance. */
  exact?: boolean;
}

/** A record of another type whose title this type's documents show (person → its company's name). */
export interface SearchReference<R> {
  /** The referenced search type. */
  type: string;
  /** Entity property holding the referenced id. */
  property: keyof R & string;
  /** Document attribute carrying the referenced id (equality-filterable: finds dependents on delete). */
  idAttribute: string;
  /** Document attribute carrying the referenced record's title. */
  nameAttribute: string;
  /** Events of the referenced record that re-sync these documents (default `<type>_updated`, `<type>_deleted`). */
  events?: string[];
}

/** A link to a company, person or deal held in `property`: its id and name attributes are named after the type. */
export const linkTo = <R>(type: 'company' | 'person' | 'deal', property: keyof R & string): SearchReference<R> => ({
  type,
  property,
  idAttribute: `${type}Id`,
  nameAttribute: `${type}Name`,
});

/** The searchable name of a linked record (the name the indexer resolved; matched through it in degraded mode). */
export const linkedName = <R>(link: SearchReference<R>): SearchField<R> => ({
  attribute: link.nameAttribute,
  value: (_row, names) => names[link.nameAttribute],
  pg: 'reference',
});

/**
 * The declarative description of one searchable type: adding a type to search is adding one
 * of these to search/registry.ts. Documents are always built from the current Postgres row.
 */
export interface SearchTypeDefinition<R extends IndexedRow = IndexedRow> {
  /** Search type name used by the API (`types=`), the index uid suffix and outbox `entityType`. */
  type: string;
  /** Tenant entity the documents are built from. */
  entity: EntitySchema<R, never> | EntitySchema<any, any>;
  /** Display title of a record; also what referencing types show (e.g. `companyName`). */
  title(row: R, prepared?: unknown): string;
  /** Entity properties `title` reads: a referenced update that changes none of them is skipped. */
  titleFields: Array<keyof R & string>;
  subtitle(row: R, names: ReferenceNames, prepared?: unknown): string | null;
  /** Searchable attributes in ranking order (the first one matters most). */
  fields: Array<SearchField<R>>;
  references?: Array<SearchReference<R>>;
  /**
   * Loads what the documents of `rows` need besides the rows (e.g. a custom object's definition);
   * its result is passed to title, subtitle and value as `prepared`.
   */
  prepare?(em: EntityManager, rows: R[]): Promise<unknown>;
  /**
   * Parent records whose events re-sync all of their rows (a custom object definition → its
   * records): found in Postgres through `property` and in the index through `idAttribute`.
   */
  parents?: Array<{ entityType: string; events: string[]; property: keyof R & string; idAttribute: string }>;
  /** Served by its own endpoint, not by `GET /search` (still indexed, synced and reindexed). */
  standalone?: boolean;
  /** Own events that re-sync a record; default every event whose entityType is `type`. */
  events?: string[];
}

export type AnyDefinition = SearchTypeDefinition<any>;

/** Typed helper so each type file gets its row type checked. */
export function defineSearchType<R extends IndexedRow>(def: SearchTypeDefinition<R>): SearchTypeDefinition<R> {
  return def;
}

/** A document as stored in Meilisearch. */
export interface SearchDocument {
  id: string;
  workspaceId: string;
  title: string;
  subtitle: string | null;
  /** Epoch milliseconds: last ranking rule (newer first among equals). */
  updatedAt: number;
  [attribute: string]: unknown;
}

/** Joins non-empty parts with a middle dot; null when nothing is left. */
export function joinParts(...parts: Array<string | null | undefined>): string | null {
  const kept = parts.map((p) => (p ?? '').trim()).filter(Boolean);
  return kept.length ? kept.join(' · ') : null;
}
