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

/**
 * Hands `fn` a new tenant of a further app started with `env` over the test defaults, for a test
 * that needs other settings than the file's app; closes that app after `fn`, whatever it did.
 */
export async function withTenantOfApp<T>(
  env: Record<string, string>,
  fn: (tenant: Tenant, app: TestApp) => Promise<T>,
): Promise<T> {
  const app = await startTestApp(env);
  try {
    return await fn(await app.tenant(), app);
  } finally {
    await app.close();
  }
}
