// The set-up of the automation-engine test files: the engine harness with its in-process worker and one
// workspace, started before the file's tests and closed after them.
import type { Tenant } from './app';
import { startEngineHarness, type EngineHarness, type HarnessOptions } from './automation-engine';

export interface EngineSuite {
  h: EngineHarness;
  t: Tenant;
}

export interface EngineOptions {
  /**
   * Goes over the test defaults; a function is called in the hook (for the ports of servers an earlier
   * `beforeAll` started).
   */
  env?: Record<string, string> | (() => Record<string, string>);
  /** Bounds the start (60 s by default). */
  timeoutMs?: number;
  /** Adjusts the harness before its worker starts (e.g. interposes on `messaging`). */
  prepare?: (h: EngineHarness) => void;
  /** The harness's options (e.g. the backlog lane). */
  harness?: HarnessOptions;
}

/**
 * Starts the engine harness, its worker and a tenant named `tenant` before the file's tests; closes the
 * harness after them. The returned suite is filled in by that hook: read `h` and `t` in tests and hooks,
 * not at the file's top level. Set-up that needs the tenant goes in a `beforeAll` declared after this call
 * (jest runs them in order).
 */
export function engineSuite(tenant: string, options: EngineOptions = {}): EngineSuite {
  const { env = {}, timeoutMs = 60_000, prepare, harness } = options;
  const suite = {} as EngineSuite;
  beforeAll(async () => {
    suite.h = await startEngineHarness(typeof env === 'function' ? env() : env, harness);
    prepare?.(suite.h);
    await suite.h.startWorker();
    suite.t = await suite.h.app.tenant(tenant);
  }, timeoutMs);
  afterAll(() => suite.h?.close());
  return suite;
}

/** `engineSuite`, handing the suite to `set` once it is started (for suites built on it, such as approval-suite). */
export function withEngine(tenant: string, set: (s: EngineSuite) => void, options: EngineOptions = {}): void {
  const suite = engineSuite(tenant, options);
  beforeAll(() => set(suite));
}

/**
 * The worker's activities over the harness's deps, to call one directly the way Temporal would (a
 * retried or replayed attempt).
 */
export async function activitiesOf(h: EngineHarness) {
  const { createActivities } = await import('../../app/activities');
  return createActivities({
    orm: h.app.runtime.deps.orm,
    config: h.app.config,
    log: h.engine.log,
    workflows: h.workflows,
  });
}
