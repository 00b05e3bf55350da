/**
 * A feature module's declaration (issue 25 item 1, first step: defined in place, folders unchanged). Each feature
 * names its parts once in `domain/<feature>/<feature>.module.ts`; `MODULES` (domain/modules.ts) lists the modules,
 * and the registries derive from that list: the route table (api/routes/index.ts), the workflow-kind registry
 * (WORKFLOW_KINDS), `createActivities` (activities/index.ts), the outbox subscribers (domain/outbox/subscribers.ts),
 * the resource list and the ORM's entities (app/resources.ts, app/orm.ts), the run-time event catalog
 * (app/event-catalog.ts) and the configuration (app/config.ts). See docs/modules.md.
 *
 * This file imports no feature: the dependency types of routes, activities and subscribers are the composition
 * roots' (`never` parameters here accept any factory; the roots check the real types when they call them).
 */
import type { ResourceEntity, ResourceManifest } from './shared/resource';
import type { WorkflowKind } from './workflow-kinds';

/** A named group of outbox subscribers (the names are recorded in `outbox_event.delivered_to`: keep them stable). */
export interface SubscriberGroupSpec {
  names: readonly string[];
  /**
   * Ported groups need a port from outside domain/ (Temporal, Meilisearch): `dependency` is its key in the
   * subscribers' deps, `group` the name `buildSubscribers(…, { without })` leaves the group out by.
   */
  port?: { readonly group: string; readonly dependency: string };
  build(deps: never): readonly { name: string }[];
}

export interface ModuleSpec {
  /** kebab-case and unique: the feature (its folder under domain/; later modules/<name>/). */
  name: string;
  /** Resource kinds the feature declares (manifests; app/resources.ts lists them, in MODULES order). */
  resources?: readonly ResourceManifest[];
  /**
   * The feature's entities that belong to no manifest: `tenant` rows (the tenant filter guards every read of them)
   * and `global` ones (read before a workspace is known, or across workspaces). app/orm.ts gives them to the ORM.
   */
  entities?: { readonly tenant?: readonly ResourceEntity[]; readonly global?: readonly ResourceEntity[] };
  /**
   * The route factories, in mounting order (routes of one module are mounted together, in MODULES order). A function
   * that `require`s the routers, so that only the API loads them (the worker would load the HTTP layer, the S3 client
   * and every router's schemas for nothing: about 0.3 s and 35 MB at start).
   */
  routes?: () => readonly ((deps: never) => readonly unknown[])[];
  /** The feature's event catalog (name → payload schema): the run-time catalog (app/event-catalog.ts) merges them. */
  events?: Readonly<Record<string, unknown>>;
  /** Temporal workflow kinds (domain/workflow-kinds.ts definitions) the feature starts. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  workflows?: readonly WorkflowKind<any>[];
  /**
   * The feature's activities, built from the worker's activity deps (each activity name unique across modules); the
   * function `require`s the activity file, so that the API does not load activity code.
   */
  activities?: (deps: never) => Readonly<Record<string, (input: never) => Promise<unknown>>>;
  /** Outbox subscribers, in registration order. */
  subscribers?: readonly SubscriberGroupSpec[];
  /** The feature's section of the process configuration (AppConfig[section], read by `load`). */
  settings?: { readonly section: string; load(env: NodeJS.ProcessEnv): unknown };
}

type Given<M, K extends keyof ModuleSpec, Default> = K extends keyof M ? Exclude<M[K], undefined> : Default;

/** A module with every list present (empty when the feature has none); literal types kept for the registries. */
export interface Module<M extends ModuleSpec = ModuleSpec> {
  readonly name: M['name'];
  readonly resources: Given<M, 'resources', readonly []>;
  readonly entities: Given<M, 'entities', undefined>;
  readonly routes: Given<M, 'routes', () => readonly []>;
  readonly events: Given<M, 'events', undefined>;
  readonly workflows: Given<M, 'workflows', readonly []>;
  readonly activities: Given<M, 'activities', undefined>;
  readonly subscribers: Given<M, 'subscribers', readonly []>;
  readonly settings: Given<M, 'settings', undefined>;
}

const NAME = /^[a-z][a-z0-9-]*$/;

export function defineModule<const M extends ModuleSpec>(spec: M): Module<M> {
  if (!NAME.test(spec.name)) throw new Error(`module "${spec.name}" must be kebab-case`);
  return {
    resources: [],
    routes: () => [],
    workflows: [],
    subscribers: [],
    events: undefined,
    entities: undefined,
    activities: undefined,
    settings: undefined,
    ...spec,
  } as unknown as Module<M>;
}
