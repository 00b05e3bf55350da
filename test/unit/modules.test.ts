/**
 * The module list (domain/modules.ts) is complete and names each part once: these checks fail when a feature is
 * half-registered (a route factory, resource manifest, workflow kind, activity factory, subscriber or settings loader
 * that no module names, or one named twice), and when a module declares what it does not build.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { RouteFactory } from '../../platform/http/app-deps';
import type { RouteDef } from '../../platform/http/registry';
import { allRoutes, ROUTE_FACTORIES } from '../../api/routes';
import { createActivities, type ActivityDeps } from '../../app/activities';
import type { WorkflowPort } from '../../modules/automations/engine/ports';
import { loadConfig } from '../../app/config';
import { loadPlatformConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { MODULES, WORKFLOW_KINDS } from '../../app/modules';
import { buildSubscribers, PORTED_SUBSCRIBERS } from '../../app/subscribers';
import type { SubscriberDeps } from '../../platform/outbox/subscriber';
import { RESOURCES, registerAppResources } from '../../app/resources';
import { resources } from '../../platform/resources';
import type { SequenceWorkflowPort } from '../../modules/sequences/ports';
import type { SubscriberGroup } from '../../platform/outbox/subscriber-groups';
import type { ResourceManifest } from '../../platform/shared/resource';
import type { WebhookRetryPort } from '../../modules/webhooks/ports';
import type { WorkflowKind } from '../../platform/workflow-kinds';

const ROOT = path.join(__dirname, '../..');
const config = loadConfig({ DATABASE_URL: 'postgres://modules-test@localhost/none' } as NodeJS.ProcessEnv);
const log = createLogger('silent', 'modules-test');
// Building routes, activities and subscribers touches none of their dependencies: stand-ins are enough here.
const appDeps = { config, orm: {}, log, temporal: {}, messaging: {}, readiness: {} } as never;
const activityDeps: ActivityDeps = { orm: {} as MikroORM, config, log, workflows: {} as WorkflowPort };
const subscriberDeps: SubscriberDeps = {
  orm: {} as MikroORM,
  config,
  log,
  workflows: {} as WorkflowPort,
  searchIndex: () => ({ name: 'search-index', handle: async () => undefined }),
  webhookRetries: {} as WebhookRetryPort,
  sequenceWorkflows: {} as SequenceWorkflowPort,
};

// eslint-disable-next-line @typescript-eslint/no-require-imports
const load = (file: string): Record<string, unknown> => require(path.join(ROOT, file)) as Record<string, unknown>;
const filesUnder = (dir: string): string[] => readdirSync(path.join(ROOT, dir), { recursive: true }) as string[];

/** The files under `dir` whose name ends with `suffix`, with their exports. */
function exportsOf(dir: string, suffix: string): { file: string; exports: Record<string, unknown> }[] {
  return filesUnder(dir)
    .filter((f) => f.endsWith(suffix))
    .map((f) => ({ file: `${dir}/${f}`, exports: load(`${dir}/${f}`) }));
}
/** Feature code lives in modules/<feature>/ (issue 25). */
const FEATURE_DIRS = ['modules'] as const;

/** Items listed more than once (by identity), across the modules' lists. */
function twice<T>(lists: readonly (readonly T[])[]): T[] {
  const all = lists.flat();
  return all.filter((item, i) => all.indexOf(item) !== i);
}

const routeKey = (r: RouteDef): string => `${r.method} ${r.path}`;

/** The modules as the registries read them (tsc checks that every module fits). */
interface ModuleView {
  name: string;
  resources: readonly ResourceManifest[];
  routes: () => readonly RouteFactory[];
  events?: Readonly<Record<string, unknown>>;
  workflows: readonly WorkflowKind<never>[];
  activities?: (deps: ActivityDeps) => Readonly<Record<string, unknown>>;
  subscribers: readonly SubscriberGroup[];
  settings?: { section: string; load(env: NodeJS.ProcessEnv): unknown };
}
const modules: readonly ModuleView[] = MODULES;

describe('modules', () => {
  it('have unique kebab-case names', () => {
    const names = modules.map((m) => m.name);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  describe('routes', () => {
    it('each route factory is named by one module, once', () => {
      expect(twice(modules.map((m) => m.routes())).map((f) => f.name)).toEqual([]);
      expect(ROUTE_FACTORIES.length).toBe(modules.flatMap((m) => m.routes()).length);
    });

    it('every route an exported route factory of api/routes, search/ or modules/ defines is mounted', () => {
      const mounted = new Set(allRoutes(appDeps).map(routeKey));
      const routers = ['api/routes', 'search', 'modules'].flatMap((d) => exportsOf(d, '.router.ts'));
      const factories = routers.flatMap(({ file, exports }) =>
        Object.entries(exports)
          // docsRoutes(getRoutes) documents the others: allRoutes adds it after the modules' routes.
          .filter(
            ([name, value]) => /Routes(With)?$/.test(name) && name !== 'docsRoutes' && typeof value === 'function',
          )
          .map(([name, value]) => ({
            name: `${file} ${name}`,
            // `<x>RoutesWith(related)` takes another module's parts from the composition (companies, people); the
            // routes only call them in handlers, so any stand-in shows which routes it defines.
            factory: name.endsWith('With')
              ? (value as (related: unknown) => RouteFactory)(new Proxy({}, { get: () => () => undefined }))
              : (value as RouteFactory),
          })),
      );
      expect(factories.length).toBeGreaterThan(50);
      const unmounted = factories.flatMap(({ name, factory }) =>
        factory(appDeps)
          .filter((r) => !mounted.has(routeKey(r)))
          .map((r) => `${name}: ${routeKey(r)}`),
      );
      expect(unmounted).toEqual([]);
    });

    it('no route is mounted twice', () => {
      const keys = allRoutes(appDeps).map(routeKey);
      expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    });
  });

  describe('resources', () => {
    it('each manifest is named by one module, and the registry platform/ reads holds every one of them', () => {
      const named = modules.flatMap((m) => m.resources);
      expect(twice(modules.map((m) => m.resources)).map((r) => r.kind)).toEqual([]);
      registerAppResources();
      const held = resources();
      expect(held.map((r) => r.kind)).toEqual(named.map((r) => r.kind));
      expect(held.filter((r) => !named.includes(r)).map((r) => r.kind)).toEqual([]);
    });

    it('every manifest a domain/ or modules/ *.resource.ts file exports is named by a module', () => {
      const named = new Set<unknown>(modules.flatMap((m) => m.resources));
      const manifests = FEATURE_DIRS.flatMap((d) => exportsOf(d, '.resource.ts')).flatMap(({ file, exports }) =>
        Object.entries(exports)
          .filter(([, v]) => typeof v === 'object' && v !== null && 'kind' in v && 'getPath' in v)
          .map(([name, v]) => ({ name: `${file} ${name}`, v })),
      );
      expect(manifests.length).toBeGreaterThanOrEqual(RESOURCES.length);
      expect(manifests.filter(({ v }) => !named.has(v)).map(({ name }) => name)).toEqual([]);
    });
  });

  describe('workflow kinds', () => {
    it("each kind of a module's *.kind.ts is named by one module", () => {
      const isKind = ([, v]: [string, unknown]): boolean =>
        typeof v === 'object' && v !== null && 'workflowType' in v && 'workflowId' in v;
      const defined = FEATURE_DIRS.flatMap((d) => exportsOf(d, '.kind.ts'))
        .flatMap(({ file, exports }) =>
          Object.entries(exports).map(([name, v]): [string, unknown] => [`${file} ${name}`, v]),
        )
        .filter(isKind);
      expect(defined.length).toBeGreaterThanOrEqual(8);
      expect(twice(modules.map((m) => m.workflows)).map((k) => k.kind)).toEqual([]);
      expect(defined.filter(([, kind]) => !(WORKFLOW_KINDS as unknown[]).includes(kind)).map(([name]) => name)).toEqual(
        [],
      );
      expect(WORKFLOW_KINDS.length).toBe(defined.length);
    });
  });

  describe('activities', () => {
    it('no two modules define an activity of the same name', () => {
      const names = modules.flatMap((m) => (m.activities ? Object.keys(m.activities(activityDeps)) : []));
      expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
      expect(Object.keys(createActivities(activityDeps)).sort()).toEqual([...names].sort());
    });

    it('every activity of a modules/ *.activities.ts factory is registered', () => {
      const registered = new Set(Object.keys(createActivities(activityDeps)));
      const factories = ['modules']
        .flatMap((d) => exportsOf(d, '.activities.ts'))
        .flatMap(({ file, exports }) =>
          Object.entries(exports)
            .filter(([name, v]) => /^create\w+Activities$/.test(name) && typeof v === 'function')
            .map(([name, v]) => ({ name: `${file} ${name}`, make: v as (deps: unknown) => Record<string, unknown> })),
        );
      expect(factories.length).toBeGreaterThanOrEqual(7);
      const missing = factories.flatMap(({ name, make }) =>
        Object.keys(make({ ...activityDeps, engine: activityDeps }))
          .filter((activity) => !registered.has(activity))
          .map((activity) => `${name}: ${activity}`),
      );
      expect(missing).toEqual([]);
    });
  });

  describe('outbox subscribers', () => {
    it('each module builds exactly the subscribers it declares, and each name is declared once', () => {
      const groups = modules.flatMap((m) => m.subscribers.map((g) => ({ module: m.name, g })));
      for (const { module, g } of groups)
        expect([module, g.build(subscriberDeps).map((s) => s.name)]).toEqual([module, g.names]);
      const declared = groups.flatMap(({ g }) => g.names);
      expect(declared.filter((n, i) => declared.indexOf(n) !== i)).toEqual([]);
      expect(buildSubscribers(subscriberDeps).map((s) => s.name)).toEqual(declared);
    });

    it('every subscriber an exported `…Subscriber` factory of domain/ or search/ builds is registered', () => {
      const registered = new Set(buildSubscribers(subscriberDeps).map((s) => s.name));
      const declaring = /export (?:function|const) (\w+Subscriber)\b/g;
      const factories = [...FEATURE_DIRS, 'search'].flatMap((dir) =>
        filesUnder(dir)
          .filter((f) => f.endsWith('.ts'))
          .flatMap((f) => {
            const names = [...readFileSync(path.join(ROOT, dir, f), 'utf8').matchAll(declaring)].map((m) => m[1]!);
            const exported = names.length ? load(`${dir}/${f}`) : {};
            return names.map((name) => ({
              name: `${dir}/${f} ${name}`,
              make: exported[name] as (deps: unknown) => unknown,
            }));
          }),
      );
      expect(factories.length).toBeGreaterThanOrEqual(9);
      // Each factory gets every port and engine setting a subscriber factory takes (construction touches none).
      const deps = { ...subscriberDeps, retries: {}, waitScale: 1 };
      const unregistered = factories.flatMap(({ name, make }) => {
        const built = make(deps) as { name?: unknown };
        return typeof built.name === 'string' && registered.has(built.name) ? [] : [`${name}: ${String(built.name)}`];
      });
      expect(unregistered).toEqual([]);
    });

    it('the ported groups are the ones that need a port, each with its own group name', () => {
      const ported = modules.flatMap((m) => m.subscribers.flatMap((g) => (g.port ? [g.port.group] : [])));
      expect(Object.keys(PORTED_SUBSCRIBERS).sort()).toEqual([...ported].sort());
      expect(new Set(ported).size).toBe(ported.length);
    });
  });

  describe('settings', () => {
    const env = { DATABASE_URL: 'postgres://modules-test@localhost/none' } as NodeJS.ProcessEnv;

    it("each module's settings are its section of the process configuration", () => {
      const loaded = loadConfig(env) as unknown as Record<string, unknown>;
      const sections = modules.flatMap((m) => (m.settings ? [m.settings] : []));
      expect(sections.length).toBeGreaterThanOrEqual(3);
      for (const s of sections) expect([s.section, loaded[s.section]]).toEqual([s.section, s.load(env)]);
      const names = sections.map((s) => s.section);
      expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
      // A module's section would replace platform's field of the same name.
      expect(names.filter((n) => Object.hasOwn(loadPlatformConfig(env), n))).toEqual([]);
    });

    it('every environment loader of a modules/*/settings.ts file (`<x>Env(env)`) is named by a module', () => {
      const loaders = new Set<unknown>(modules.flatMap((m) => (m.settings ? [m.settings.load] : [])));
      const found = FEATURE_DIRS.flatMap((d) => exportsOf(d, '/settings.ts')).flatMap(({ file, exports }) =>
        Object.entries(exports)
          .filter(([name, v]) => /Env$/.test(name) && typeof v === 'function')
          .map(([name, v]) => ({ name: `${file} ${name}`, v })),
      );
      expect(found.filter(({ v }) => !loaders.has(v)).map(({ name }) => name)).toEqual([]);
    });
  });

  it('the worker loads no router and the API no activity code (modules require them on first use)', () => {
    // Which project files a process has loaded once its entry is imported (a child process: jest has its own loader).
    const loaded = (entry: string): string[] =>
      JSON.parse(
        execFileSync(
          process.execPath,
          [
            '--import',
            'tsx',
            '-e',
            `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`,
          ],
          { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
        ),
      ).map((f: string) => path.relative(ROOT, f));
    const worker = loaded('./bin/worker.ts');
    expect(worker).toContain('app/modules.ts');
    expect(worker.filter((f) => f.startsWith('api/') || f.endsWith('.router.ts'))).toEqual([]);
    const api = loaded('./api/bootstrap.ts');
    expect(api).toContain('modules/bookings/bookings.router.ts');
    expect(
      api.filter((f) => f === 'app/activities.ts' || f.endsWith('.activities.ts') || f.includes('/actions/')),
    ).toEqual([]);
  }, 60_000);

  it('no two modules declare an event of the same name', () => {
    const names = modules.flatMap((m) => Object.keys(m.events ?? {}));
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});
