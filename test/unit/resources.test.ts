/**
 * Resource manifests (modules/<module>/<module>.resource.ts, named by their module: app/resources.ts) are the
 * one place a kind is declared. These checks fail when a kind is half-registered: an entity the
 * tenant filter does not cover, a manifest without its route or factory, an automation namespace
 * without a loader, a search type without a definition (or the reverse), a record type without an
 * export spec, lists that still restate the record kinds and disagree.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { EntitySchema } from '@mikro-orm/core';
import type { RouteDef } from '../../platform/http/registry';
import { allRoutes } from '../../api/routes';
import { loadConfig } from '../../app/config';
import { createLogger } from '../../platform/logger';
import { ENTITIES } from '../../app/orm';
import { registerAppResources, RESOURCE_ENTITIES, RESOURCES, resourceOf } from '../../app/resources';
import type { ResourceEntity } from '../../platform/shared/resource';
import { recordKind, RECORD_TYPES } from '../../platform/shared/record-kinds';
import { exportPaths, exportSpecs } from '../../modules/exports/export-specs';
import { contextLoaders, loadEntityContext } from '../../modules/automations/engine/context';
import { lookupEntityInfo, lookupEntityTypes } from '../../modules/automations/engine/lookup';
import { LOOKUP_ENTITY_TYPES } from '../../modules/automations/definition.schemas';
import { normalizeEntity, TRIGGER_NAMESPACES } from '../../modules/automations/triggers';
import { NOTE_PARENT_FIELDS, TASK_PARENT_FIELDS } from '../../modules/timeline/parents';
import { ACTIVITY_ENTITY_TYPES } from '../../modules/timeline/timeline.schemas';
import { linkColumns, type RefKind } from '../../modules/timeline/references';
import { LIST_ENTITY_TYPES } from '../../modules/lists/list.entity';
import { IMPORT_ENTITY_TYPES } from '../../modules/imports/import-run.entity';
import { createFieldBody } from '../../modules/custom-objects/custom-objects.schemas';
import { SEARCH_DEFINITIONS } from '../../search/registry';
import { factories } from '../support/factories';

/** Where features keep their entities: the module folders (issue 25). */
const FEATURE_ROOTS = ['../../modules'].map((d) => path.join(__dirname, d));
const className = (e: ResourceEntity): string => e.meta.className;
const props = (e: ResourceEntity): string[] => Object.keys(e.meta.properties);
const hasWorkspace = (e: ResourceEntity): boolean => props(e).includes('workspaceId');

/** Every entity schema exported by a modules/ `*.entity.ts` file (also the ones nobody registered). */
function discoveredEntities(): ResourceEntity[] {
  const files = FEATURE_ROOTS.flatMap((root) =>
    (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('.entity.ts'))
      .map((f) => path.join(root, f)),
  );
  expect(files.length).toBeGreaterThan(30);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = (f: string): Record<string, unknown> => require(f) as Record<string, unknown>;
  return files.flatMap((f) => Object.values(load(f))).filter((v): v is ResourceEntity => v instanceof EntitySchema);
}

/** The route registry as the app builds it (construction touches no database or Temporal). */
function routes(): RouteDef[] {
  const config = loadConfig({ DATABASE_URL: 'postgres://resources-test@localhost/none' } as NodeJS.ProcessEnv);
  return allRoutes({
    config,
    orm: {},
    log: createLogger('silent', 'resources-test'),
    temporal: {},
    messaging: {},
    readiness: {},
  } as never);
}

const { tenant: tenantEntities, global: globalEntities } = ENTITIES;
const allEntities = [...globalEntities, ...tenantEntities];
// The readers under test (record kinds, export specs, the automation context) take the list from platform's registry.
registerAppResources();

describe('resource manifests', () => {
  const kinds = RESOURCES.map((r) => r.kind);

  it('name each kind, collection and entity once', () => {
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(new Set(RESOURCES.map((r) => r.getPath)).size).toBe(RESOURCES.length);
    const names = RESOURCE_ENTITIES.map(className);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    for (const r of RESOURCES) expect(resourceOf(r.kind)).toBe(r);
  });

  describe('tenant entities derive from the manifests', () => {
    it('every domain entity is registered with the ORM, and every one with a workspaceId is tenant-filtered', () => {
      const all = new Set<unknown>(allEntities);
      const tenant = new Set<unknown>(tenantEntities);
      const global = new Set<unknown>(globalEntities);
      const unregistered = discoveredEntities()
        .filter((e) => !all.has(e))
        .map(className);
      expect(unregistered).toEqual([]);
      const unfiltered = allEntities.filter((e) => hasWorkspace(e) && !tenant.has(e) && !global.has(e)).map(className);
      expect(unfiltered).toEqual([]);
      expect(tenantEntities.filter((e) => !hasWorkspace(e)).map(className)).toEqual([]);
      const names = tenantEntities.map(className);
      expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    });

    it("every manifest's entities are tenant entities with a workspaceId", () => {
      const tenant = new Set<unknown>(tenantEntities);
      for (const e of RESOURCE_ENTITIES)
        expect([className(e), tenant.has(e) && hasWorkspace(e)]).toEqual([className(e), true]);
    });
  });

  describe('routes and factories', () => {
    const registry = routes();

    it.each(RESOURCES.map((r) => [r.kind, r] as const))(
      '%s: its getPath is a GET route whose last parameter is this kind, and the kind has a factory',
      (kind, r) => {
        const get = registry.find((x) => x.method === 'GET' && x.path === r.getPath);
        expect(get).toBeDefined();
        const params = [...r.getPath.matchAll(/:(\w+)/g)].map((m) => m[1]!);
        expect(get!.resources?.[params.at(-1)!]).toBe(kind);
        expect(r.getPath.startsWith(`/api/v1/${r.collection}/`)).toBe(true);
        expect(typeof factories[kind]).toBe('function');
      },
    );

    it('every resource kind a route names has a factory in test/support/factories.ts', () => {
      const missing = registry.flatMap((x) =>
        Object.values(x.resources ?? {})
          .filter((k) => !factories[k])
          .map((k) => `${x.method} ${x.path}: ${k}`),
      );
      expect(missing).toEqual([]);
    });

    it.each(RESOURCES.map((r) => [r.kind, r] as const))(
      '%s: a loader by id unless its reads are nested under another record, parents are known kinds on entity fields',
      (_kind, r) => {
        const nested = [...r.getPath.matchAll(/:(\w+)/g)].length > 1;
        expect(typeof r.load === 'function' || nested).toBe(true);
        for (const [field, parent] of Object.entries(r.parents ?? {})) {
          expect([field, props(r.entity).includes(field)]).toEqual([field, true]);
          expect([parent, Boolean(resourceOf(parent) || factories[parent])]).toEqual([parent, true]);
        }
      },
    );
  });

  describe('timeline and parents', () => {
    const byRefKind = new Map(RESOURCES.filter((r) => r.timeline).map((r) => [r.timeline!.refKind, r.kind]));

    it("the manifests' timeline link columns are the ones timeline rows write", () => {
      for (const r of RESOURCES.filter((x) => x.timeline)) {
        const columns = Object.keys(linkColumns(r.timeline!.refKind as RefKind, 'x'));
        expect([r.kind, columns]).toEqual([r.kind, r.timeline!.linkColumn ? [r.timeline!.linkColumn] : []]);
      }
    });

    it.each([
      ['task', TASK_PARENT_FIELDS],
      ['note', NOTE_PARENT_FIELDS],
    ] as const)('%s parents agree with the parent rule', (kind, fields) => {
      const declared = Object.fromEntries(
        Object.entries(fields).map(([field, refKind]) => [field, byRefKind.get(refKind)]),
      );
      expect(resourceOf(kind)!.parents).toEqual(declared);
    });
  });

  describe('automations', () => {
    const automated = RESOURCES.filter((r) => r.automation);

    it.each(automated.map((r) => [r.kind, r] as const))(
      '%s: a namespace has a context loader (and a loader a namespace) that triggers use',
      (_kind, r) => {
        const a = r.automation!;
        expect(a.namespace === null).toBe(a.load === undefined);
        if (a.namespace) expect(Object.values(TRIGGER_NAMESPACES).some((ns) => ns.includes(a.namespace!))).toBe(true);
      },
    );

    it('the context loader resolves each kind by its automation name, once', () => {
      const withLoader = automated.filter((r) => r.automation!.load);
      const keys = withLoader.map((r) => normalizeEntity(r.automation!.entityType) ?? r.automation!.entityType);
      expect(new Set(keys).size).toBe(keys.length);
      expect([...contextLoaders().keys()].sort()).toEqual([...keys].sort());
    });

    it("lookup entity types come from the manifests, are the spec's names, and load their namespace", () => {
      const lookups = automated.filter((r) => r.automation!.lookup).map((r) => r.automation!.lookup!);
      expect(new Set(lookups).size).toBe(lookups.length);
      expect(lookupEntityTypes().sort()).toEqual([...lookups].sort());
      for (const name of lookups) expect(LOOKUP_ENTITY_TYPES as readonly string[]).toContain(name);
      for (const r of automated.filter((x) => x.automation!.lookup)) {
        const info = lookupEntityInfo(r.automation!.lookup!)!;
        expect(info).toEqual({ namespace: r.automation!.namespace, kind: r.automation!.entityType });
        if (info.namespace)
          expect(contextLoaders().get(normalizeEntity(info.kind) ?? info.kind)).toBe(
            contextLoaders().get(normalizeEntity(r.automation!.entityType) ?? r.automation!.entityType),
          );
      }
    });

    it('an unknown id or kind loads an empty context without touching the database', async () => {
      const em = {
        findOne: () => {
          throw new Error('no database here');
        },
      } as never;
      for (const r of automated.filter((x) => x.automation!.load && x.kind !== 'custom-object-record')) {
        await expect(loadEntityContext(em, r.automation!.entityType, 'not-an-id')).resolves.toEqual({});
      }
      await expect(loadEntityContext(em, 'no-such-kind', '0123456789abcdef01234567')).resolves.toEqual({});
    });
  });

  describe('search', () => {
    it('every search type a manifest names has a definition over the same entity', () => {
      for (const r of RESOURCES.filter((x) => x.search)) {
        const def = SEARCH_DEFINITIONS.find((d) => d.type === r.search);
        expect([r.kind, def?.entity === r.entity]).toEqual([r.kind, true]);
      }
    });

    it('every search definition is named by a manifest (none is silently left out)', () => {
      const named = new Set(RESOURCES.map((r) => r.search));
      for (const d of SEARCH_DEFINITIONS) expect([d.type, named.has(d.type)]).toEqual([d.type, true]);
    });
  });

  describe('record kinds and exports', () => {
    it('the record types are the manifests with record support, in RESOURCES order', () => {
      expect(RESOURCES.filter((r) => r.record).map((r) => r.kind)).toEqual([...RECORD_TYPES]);
      for (const type of RECORD_TYPES) expect(recordKind(type).entity).toBe(resourceOf(type)!.entity);
    });

    it('lists that name the record types agree with them', () => {
      const sorted = (xs: readonly string[]) => [...xs].sort();
      expect(sorted(LIST_ENTITY_TYPES)).toEqual(sorted(RECORD_TYPES));
      expect(sorted(IMPORT_ENTITY_TYPES)).toEqual(sorted(RECORD_TYPES));
      expect(sorted(ACTIVITY_ENTITY_TYPES)).toEqual(sorted(RECORD_TYPES));
      // Reference fields of custom objects may point at exactly the record types (nativeEntity).
      expect(sorted(createFieldBody.shape.nativeEntity.unwrap().options)).toEqual(sorted(RECORD_TYPES));
    });

    it.each(RESOURCES.filter((r) => r.export).map((r) => [r.kind, r] as const))(
      '%s: an exportable kind is a record type with an export route and stored fields',
      (kind, r) => {
        expect(RECORD_TYPES as readonly string[]).toContain(kind);
        const spec = exportSpecs()[kind as (typeof RECORD_TYPES)[number]];
        expect(spec).toEqual({ type: kind, ...r.export });
        expect(exportPaths()[kind as (typeof RECORD_TYPES)[number]]).toBe(r.collection);
        expect(routes().some((x) => x.method === 'POST' && x.path === `/api/v1/export/${r.collection}`)).toBe(true);
        for (const f of [...r.export!.sortable, ...r.export!.filters])
          expect([f, props(r.entity).includes(f)]).toEqual([f, true]);
      },
    );

    it('every record type has an export spec', () => {
      for (const type of RECORD_TYPES) expect(resourceOf(type)?.export).toBeDefined();
    });
  });
});
