// End to end through the generated TypeScript SDK only (sdk/typescript), type-checked with the
// repository's strict tsconfig: the scenario of test/support/sdk-scenario.ts against the real app.
import { createCrmClient } from '../../sdk/typescript';
import type { OutboxDispatcher } from '../../platform/outbox/dispatcher';
import { startTestApp, type Tenant, type TestApp } from '../support/app';
import { runSdkScenario } from '../support/sdk-scenario';
import { deleteIndexes, startSearchIndexing, testMeili, uniqueIndexPrefix } from '../support/search';

// Search reads Meilisearch, which the outbox dispatcher feeds (as the worker does), under this file's own prefix.
const PREFIX = uniqueIndexPrefix('sdk');
let app: TestApp;
let tenant: Tenant;
let indexing: OutboxDispatcher;
beforeAll(async () => {
  app = await startTestApp({ MEILI_INDEX_PREFIX: PREFIX });
  tenant = await app.tenant();
  indexing = await startSearchIndexing(app, [tenant.workspaceId]);
});
afterAll(async () => {
  await indexing?.stop();
  await deleteIndexes(testMeili(), PREFIX);
  await app.close();
});

it('an integration works through the SDK alone: records, a deal moved, an automation, an enrollment, search', async () => {
  const crm = createCrmClient({ baseUrl: app.baseUrl, apiKey: tenant.apiKey });
  const result = await runSdkScenario(crm);

  const deal = await crm.GET('/api/v1/deals/{id}', { params: { path: { id: result.dealId } } });
  expect(deal.response.status).toBe(200);
  expect(deal.data?.data).toMatchObject({ stageId: result.stageId, company: result.companyId });
  expect(result.steps.every((s) => s.status < 300)).toBe(true);

  const automation = await crm.GET('/api/v1/automations/{id}', { params: { path: { id: result.automationId } } });
  expect(automation.data?.data.isActive).toBe(true);
  const enrollment = await crm.GET('/api/v1/sequences/enrollments/{enrollmentId}', {
    params: { path: { enrollmentId: result.enrollmentId } },
  });
  expect(enrollment.data?.data).toMatchObject({ sequenceId: result.sequenceId, entityId: result.personId });
  expect(enrollment.data?.data.status).toBe('active');
});

it('a typed error answer: an unknown id is 404 with { error }', async () => {
  const tenant = await app.tenant();
  const crm = createCrmClient({ baseUrl: app.baseUrl, apiKey: tenant.apiKey });
  const missing = await crm.GET('/api/v1/companies/{id}', { params: { path: { id: '0123456789abcdef01234567' } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error?.error).toMatch(/not found/);
});
