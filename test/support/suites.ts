// The set-up most HTTP test files share: the app on an ephemeral port and one workspace with its owner
// key, started before the file's tests and closed after them.
import { startTestApp, type Tenant, type TestApp } from './app';

export interface AppAndTenant {
  app: TestApp;
  t: Tenant;
}

/**
 * Starts the app (with `env` over the test defaults) and one tenant (named `tenant`) before the file's
 * tests and hands both to `set`; closes the app after them. Set-up that needs the tenant goes in a
 * `beforeAll` declared after this call (jest runs them in order).
 */
export function withTestApp(
  set: (s: AppAndTenant) => void,
  options: { tenant?: string; env?: Record<string, string> } = {},
): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp(options.env);
    set({ app, t: await app.tenant(options.tenant) });
  });
  afterAll(() => app?.close());
}
