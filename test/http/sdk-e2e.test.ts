// End to end through the generated TypeScript SDK only (sdk/typescript), type-checked with the
// repository's strict tsconfig: the scenario of test/support/sdk-scenario.ts against the real app.
import { createCrmClient } from '../../sdk/typescript';
import { startTestApp, type TestApp } from '../support/app';
import { runSdkScenario } from '../support/sdk-scenario';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

it('an integration creates a company, a person and a deal and moves the deal, through the SDK alone', async () => {
  const tenant = await app.tenant();
  const crm = createCrmClient({ baseUrl: app.baseUrl, apiKey: tenant.apiKey });
  const result = await runSdkScenario(crm);

  const deal = await crm.GET('/api/v1/deals/{id}', { params: { path: { id: result.dealId } } });
  expect(deal.response.status).toBe(200);
  expect(deal.data?.data).toMatchObject({ stageId: result.stageId, company: result.companyId });
  expect(result.steps.every((s) => s.status < 300)).toBe(true);
});

it('a typed error answer: an unknown id is 404 with { error }', async () => {
  const tenant = await app.tenant();
  const crm = createCrmClient({ baseUrl: app.baseUrl, apiKey: tenant.apiKey });
  const missing = await crm.GET('/api/v1/companies/{id}', { params: { path: { id: '0123456789abcdef01234567' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.error).toMatch(/not found/);
});
