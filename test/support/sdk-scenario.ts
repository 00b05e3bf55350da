// The SDK scenario: what an integration does first, only through the generated typed client
// (sdk/typescript). Run by test/http/sdk-e2e.test.ts and by `npm run contract:drift` (through
// redocly's recording proxy). Throws with the failing call's answer when a step goes wrong.
import { saved, type CrmClient } from '../../sdk/typescript';
import { noteOnCreateGraph } from './note-graph';

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
  automationId: string;
  sequenceId: string;
  enrollmentId: string;
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

export async function runSdkScenario(
  crm: CrmClient,
  { name = `Nordic Bikes ${Date.now()}`, searchWaitMs = 30_000 }: { name?: string; searchWaitMs?: number } = {},
): Promise<ScenarioResult> {
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

  // An automation: a note on every new deal, activated.
  const automation = expectData(
    'POST /automations',
    await crm.POST('/api/v1/automations', {
      body: {
        name: `${name}: note new deals`,
        ...noteOnCreateGraph('deal', 'New deal {{deal.title}}'),
      },
    }),
    steps,
  ).data;
  const active = expectData(
    'POST /automations/:id/toggle',
    await crm.POST('/api/v1/automations/{id}/toggle', { params: { path: { id: automation._id } } }),
    steps,
  ).data;
  if (!active.isActive) throw new Error('the automation did not activate');

  // A sequence (start → wait 30 days → a task), activated; the person enrolled and the enrollment read back.
  const sequence = expectData(
    'POST /sequences',
    await crm.POST('/api/v1/sequences', {
      body: {
        name: `${name}: nurture`,
        nodes: [
          { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
          { id: 'wait_1', type: 'wait', position: { x: 300, y: 0 }, data: { waitDays: 30 } },
          {
            id: 'task_1',
            type: 'create_task',
            position: { x: 600, y: 0 },
            data: { taskTitle: 'Call {{contact.firstName}}' },
          },
        ],
        edges: [
          { id: 'e1', source: 'start', target: 'wait_1', sourceHandle: null },
          { id: 'e2', source: 'wait_1', target: 'task_1', sourceHandle: null },
        ],
      },
    }),
    steps,
  ).data;
  expectData(
    'POST /sequences/:id/toggle',
    await crm.POST('/api/v1/sequences/{id}/toggle', { params: { path: { id: sequence._id } } }),
    steps,
  );
  const enrolled = expectData(
    'POST /sequences/:id/enroll',
    await crm.POST('/api/v1/sequences/{id}/enroll', {
      params: { path: { id: sequence._id } },
      body: { entityType: 'People', entityId: person._id },
    }),
    steps,
  ).data;
  const enrollmentId = 'enrollmentId' in enrolled ? enrolled.enrollmentId : undefined;
  if (!enrollmentId) throw new Error(`enroll answered no enrollmentId: ${JSON.stringify(enrolled)}`);
  const enrollment = expectData(
    'GET /sequences/enrollments/:enrollmentId',
    await crm.GET('/api/v1/sequences/enrollments/{enrollmentId}', { params: { path: { enrollmentId } } }),
    steps,
  ).data;
  if (enrollment.entityId !== person._id || enrollment.sequenceId !== sequence._id)
    throw new Error(`the enrollment names another record: ${JSON.stringify(enrollment)}`);

  // Search finds the company once the index has it (Meilisearch is updated from the outbox, a moment
  // after the write; Postgres answers while the index is unavailable).
  const deadline = Date.now() + searchWaitMs;
  for (;;) {
    const found = expectData(
      'GET /search',
      await crm.GET('/api/v1/search', { params: { query: { q: name, types: 'company' } } }),
      steps,
    ).data;
    if (found.results.company?.hits.some((hit) => hit._id === company._id)) break;
    if (Date.now() > deadline)
      throw new Error(`search did not find the company within ${searchWaitMs} ms: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  return {
    steps,
    companyId: company._id,
    personId: person._id,
    dealId: deal._id,
    stageId: next.id,
    automationId: automation._id,
    sequenceId: sequence._id,
    enrollmentId,
  };
}
