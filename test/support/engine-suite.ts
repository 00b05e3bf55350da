// The set-up of the automation-engine test files: the engine harness with its in-process worker and one
// workspace, started before the file's tests and closed after them.
import type { Tenant } from './app';
import { startEngineHarness, type EngineHarness } from './automation-engine';

export interface EngineSuite {
  h: EngineHarness;
  t: Tenant;
}

/**
 * Starts the engine harness, its worker and a tenant named `tenant` before the file's tests and hands
 * them to `set`; closes the harness after them. `env` goes over the test defaults (a function is called
 * in the hook, for the ports of servers an earlier `beforeAll` started); `timeoutMs` bounds the start
 * (60 s by default). Set-up that needs the tenant goes in a `beforeAll` declared after this call (jest
 * runs them in order).
 */
export function withEngine(
  tenant: string,
  set: (s: EngineSuite) => void,
  options: { env?: Record<string, string> | (() => Record<string, string>); timeoutMs?: number } = {},
): void {
  const { env = {}, timeoutMs = 60_000 } = options;
  let h: EngineHarness | undefined;
  beforeAll(async () => {
    h = await startEngineHarness(typeof env === 'function' ? env() : env);
    await h.startWorker();
    set({ h, t: await h.app.tenant(tenant) });
  }, timeoutMs);
  afterAll(() => h?.close());
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
