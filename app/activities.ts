import { MODULES } from './modules';
import type { ActivityDeps } from '../platform/activity-deps';
import { createAiProvider } from '../adapters/ai/factory';

export type { ActivityDeps } from '../platform/activity-deps';

type Modules = (typeof MODULES)[number];
type ActivitiesOf<M> = M extends { activities: (deps: ActivityDeps) => infer A } ? A : never;
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every module's activities by name (workflows type their proxies with `ReturnType<typeof createActivities>`). */
export type Activities = Intersection<ActivitiesOf<Modules>>;

/**
 * All activities registered on the worker: each module's `activities` factory (domain/<feature>/<feature>.module.ts),
 * in MODULES order. An activity name given by two modules is refused (the worker would run only one of them).
 */
export function createActivities(given: ActivityDeps): Activities {
  // The provider AI_* configures, when the caller gives none (tests, benches; the worker builds it): built here, in the
  // composition, because a module does not import the adapters implementing its ports.
  const deps: ActivityDeps = { ...given, ai: given.ai ?? createAiProvider(given.config) };
  const all: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  for (const m of MODULES as readonly Modules[]) {
    if (!m.activities) continue;
    for (const [name, fn] of Object.entries(m.activities(deps))) {
      if (owner.has(name)) throw new Error(`activity ${name} is defined by modules ${owner.get(name)} and ${m.name}`);
      owner.set(name, m.name);
      all[name] = fn;
    }
  }
  return all as Activities;
}
