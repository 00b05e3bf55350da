/**
 * The manifest of one resource kind (`modules/<module>/<module>.resource.ts`): what the rest of the
 * codebase needs to know about the kind, declared once. Its module names it in `resources`; `RESOURCES`
 * (app/resources.ts, registered in platform/resources.ts) lists every manifest, and the tenant entity
 * list, export specs, record kinds, the automation context loader and lookup node derive from that
 * list; test/unit/resources.test.ts fails when a kind is half-registered. Pure declarations: no I/O
 * at import time.
 */
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Ctx } from '../context';
import { notFound } from '../errors';

/** A `defineEntity` schema (structurally: it knows its class name and properties). */
export interface ResourceEntity {
  readonly meta: { className: string; properties: object };
}

/** Link columns the automation context follows from a record (lead → its person, company, owner, …). */
export interface ContextLinks {
  leadId?: unknown;
  dealId?: unknown;
  personId?: unknown;
  companyId?: unknown;
  ownerId?: unknown;
}

export interface AutomationSupport {
  /**
   * The kind's name in automation events and executions (`system.entityType`, lookup fan-out
   * children): 'lead', 'event', 'custom_object', 'support-ticket', …
   */
  entityType: string;
  /** The placeholder namespace the record fills (`lead`, `custom_record`, …); null: not loaded into contexts. */
  namespace: string | null;
  /** The lookup node's `entityType` for this kind (spec vocabulary: 'People', 'Event', …); absent: no lookups. */
  lookup?: string;
  /**
   * Loads the record's namespaces (usually one; a person also fills `contact`) and the link
   * columns the context follows. Null when the id is unknown in the bound workspace.
   */
  load?(em: EntityManager, id: string): Promise<{ namespaces: Record<string, unknown>; links: ContextLinks } | null>;
}

/** Export of the kind (`POST /api/v1/export/<collection>`): stored fields, API names. */
export interface ExportSupport {
  /** Same names and order as the API's reads of this kind. */
  fields: readonly string[];
  sortable: readonly string[];
  /** Equality filters (a value, a list = any of, null = empty); `tags` means "has all of these tags". */
  filters: readonly string[];
}

/** CRM records that carry tags and custom fields and can be put on lists (see domain/shared/record-kinds.ts). */
export interface RecordSupport {
  /** Companies/people store custom fields as [{ name, value }]; leads/deals as a key → value map. */
  customFieldStorage: 'pairs' | 'map';
  /** Fields of the summary view (lists, tags), besides `_id`. */
  summaryFields: readonly string[];
  /** Human-readable name for feed rows. */
  displayName(record: Record<string, unknown>): string;
}

/** Timeline (CRM activity feed) support: how timeline rows point at a record of this kind. */
export interface TimelineSupport {
  /** The reference kind timeline rows, tasks and notes use for it (modules/timeline/references.ts). */
  refKind: string;
  /** The dedicated link column of timeline rows, when the kind has one. */
  linkColumn?: 'companyId' | 'personId' | 'leadId' | 'dealId';
}

export interface ResourceManifest<Row extends object = object> {
  /** Kind name: the value routes give in `resources`, the key of its factory in test/support/factories.ts. */
  kind: string;
  /** Collection name: the URL segment of the kind under /api/v1. */
  collection: string;
  /** The route that reads one record (the CRUD contract and tenant-isolation suites walk it); see defineResource. */
  getPath: string;
  /** The kind's main entity (tenant-scoped). */
  entity: ResourceEntity;
  /** Further tenant entities the module owns (children, settings), so the tenant list derives from manifests. */
  ownedEntities?: readonly ResourceEntity[];
  /** Loader by id through the request's context: 404 when it is not in the caller's workspace. */
  load?(ctx: Ctx, id: string): Promise<Row>;
  /** The public (API) view of a loaded row, when it needs nothing but the row. */
  view?(row: Row): Record<string, unknown>;
  /** Body/entity field → kind of the record it points at (parents and links). */
  parents?: Readonly<Record<string, string>>;
  automation?: AutomationSupport;
  /** Search type name (search/types/*.ts `type`); search/ checks its registry against it. */
  search?: string;
  export?: ExportSupport;
  record?: RecordSupport;
  timeline?: TimelineSupport;
}

/**
 * Keeps the row type of `load`/`view` together; `getPath` defaults to `/api/v1/<collection>/:id` (give it only where
 * the record is read elsewhere).
 */
export function defineResource<Row extends object>(
  manifest: Omit<ResourceManifest<Row>, 'getPath'> & { getPath?: string },
): ResourceManifest<Row> {
  return { ...manifest, getPath: manifest.getPath ?? `/api/v1/${manifest.collection}/:id` };
}

/**
 * A loader by id for kinds whose module has none to share: the row in the caller's workspace, else 404 `<label> not
 * found`.
 */
export function loadById<Row extends object>(
  entity: EntityName<Row>,
  label: string,
): (ctx: Ctx, id: string) => Promise<Row> {
  return async (ctx, id) => {
    const row = await ctx.em.findOne(entity, { _id: id } as never);
    if (!row) throw notFound(label);
    return row as Row;
  };
}
