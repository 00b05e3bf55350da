// The SDK scenario: what an integration does first, only through the generated typed client
// (sdk/typescript). Run by test/http/sdk-e2e.test.ts and by `npm run contract:drift` (through
// redocly's recording proxy). Throws with the failing call's answer when a step goes wrong.
import { saved, type CrmClient } from '../../sdk/typescript';

export interface ScenarioStep {
  call: string;
  status: number;
}

export interface ScenarioResult {
  steps: ScenarioStep[];
  companyId: string;
  personId: string;
  dealId: string;
  stageId: string;
}

/** The body of a successful answer, or an error naming the call and what came back. */
function expectData<T>(
  call: string,
  result: { data?: T; error?: unknown; response: Response },
  steps: ScenarioStep[],
): T {
  steps.push({ call, status: result.response.status });
  if (result.data === undefined || !result.response.ok)
    throw new Error(`${call} answered ${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}

export async function runSdkScenario(crm: CrmClient, name = `Nordic Bikes ${Date.now()}`): Promise<ScenarioResult> {
  const steps: ScenarioStep[] = [];

  const me = expectData('GET /whoami', await crm.GET('/api/v1/whoami'), steps);
  if (!me.data.workspace._id) throw new Error('whoami: no workspace');

  const company = saved(
    expectData('POST /companies', await crm.POST('/api/v1/companies', { body: { name, tags: ['sdk'] } }), steps).data,
  );
  const person = saved(
    expectData(
      'POST /people',
      await crm.POST('/api/v1/people', {
        body: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          emails: [{ email: 'ada@example.com' }],
          companyId: company._id,
        },
      }),
      steps,
    ).data,
  );

  const deal = saved(
    expectData(
      'POST /deals',
      await crm.POST('/api/v1/deals', {
        body: { title: `${name} fleet`, value: 12000, company: company._id, personRef: person._id },
      }),
      steps,
    ).data,
  );
  if (!deal.flowId || !deal.stageId) throw new Error('a deal without flowId enters the default flow');
  const flow = expectData(
    'GET /flows/:id',
    await crm.GET('/api/v1/flows/{id}', { params: { path: { id: deal.flowId } } }),
    steps,
  ).data;
  const next = flow.stages.find((s) => s.type === 'open' && s.id !== deal.stageId);
  if (!next) throw new Error('the default flow has a second open stage');
  const moved = expectData(
    'POST /deals/:id/move',
    await crm.POST('/api/v1/deals/{id}/move', { params: { path: { id: deal._id } }, body: { stageId: next.id } }),
    steps,
  ).data;
  if (moved.stageId !== next.id) throw new Error(`the deal did not move: ${JSON.stringify(moved)}`);

  return { steps, companyId: company._id, personId: person._id, dealId: deal._id, stageId: next.id };
}
