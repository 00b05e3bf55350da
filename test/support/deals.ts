import type { HttpClient, TestApp, Tenant } from './app';
import {
  CustomFieldDefinition,
  type CustomFieldType,
} from '../../modules/custom-fields/custom-field-definition.entity';
import { Lead } from '../../modules/leads/lead.entity';
import { User } from '../../modules/workspaces/user.entity';
import { newId } from '../../platform/ids';
import { withTestApp, type AppAndTenant } from './suites';

/** Rows other slices own, written straight to the database so deal tests do not depend on their routes. */
async function insert(app: TestApp, entity: unknown, data: Record<string, unknown>): Promise<string> {
  const em = app.runtime.deps.orm.em.fork();
  const now = new Date();
  const row = em.create(entity as never, { _id: newId(), createdAt: now, updatedAt: now, ...data } as never);
  await em.flush();
  return (row as { _id: string })._id;
}

export const insertLead = (app: TestApp, t: Tenant, title = 'Lead') =>
  insert(app, Lead, { workspaceId: t.workspaceId, title });
export const insertUser = (app: TestApp, t: Tenant) =>
  insert(app, User, {
    workspaceId: t.workspaceId,
    email: `u-${newId()}@example.test`,
    firstName: 'Second',
    role: 'member',
  });
export const insertDealField = (
  app: TestApp,
  t: Tenant,
  key: string,
  type: CustomFieldType,
  extra: Record<string, unknown> = {},
) =>
  insert(app, CustomFieldDefinition, {
    workspaceId: t.workspaceId,
    entityType: 'deal',
    key,
    label: key,
    type,
    ...extra,
  });

export async function countDeals(app: TestApp, workspaceId: string): Promise<number> {
  const rows = await app.runtime.deps.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>('select count(*) as n from deal where workspace_id = ?', [workspaceId]);
  return Number(rows[0]!.n);
}

/** A deal flow as the API answers it (the parts the deal tests read). */
export interface FlowView {
  _id: string;
  stages: { id: string; title: string; type?: string }[];
}

/** The id of the stage titled `title` in `flow`. */
export const stageId = (flow: FlowView, title: string): string => flow.stages.find((s) => s.title === title)!.id;

/** The workspace's default flow (the first listed) and a second flow, created with `title` and `stages`. */
export async function defaultFlowAnd(
  http: HttpClient,
  title: string,
  stages: Record<string, unknown>[],
): Promise<[FlowView, FlowView]> {
  const pipeline = (await http.get('/api/v1/flows')).body.data[0] as FlowView;
  const other = (await http.post('/api/v1/flows', { title, stages })).body.data as FlowView;
  return [pipeline, other];
}

/** A well-formed id no row has. */
export const UNKNOWN_ID = '0123456789abcdef01234567';

export interface DealFlowsSuite extends AppAndTenant {
  /** The workspace's default flow. */
  pipeline: FlowView;
  /** A second flow, Renewals: Due (open), Renewed (won), Churned (lost). */
  other: FlowView;
}

/**
 * The deal test files' set-up: withTestApp, then the tenant's default flow and a second flow (Renewals:
 * Due, Renewed as won, Churned as lost), handed to `set` with the app and the tenant.
 */
export function withDealFlows(set: (s: DealFlowsSuite) => void): void {
  let suite: AppAndTenant;
  withTestApp((s) => (suite = s));
  beforeAll(async () => {
    const [pipeline, other] = await defaultFlowAnd(suite.t.http, 'Renewals', [
      { title: 'Due' },
      { title: 'Renewed', type: 'won' },
      { title: 'Churned', type: 'lost' },
    ]);
    set({ ...suite, pipeline, other });
  });
}

/** A deal created through POST /api/v1/deals (title 'Deal' unless `body` names one); the test fails unless 201. */
export async function createDeal(http: HttpClient, body: Record<string, unknown> = {}): Promise<any> {
  const res = await http.post('/api/v1/deals', { title: 'Deal', ...body });
  expect(res.status).toBe(201);
  return res.body.data;
}

/** The deal's activity feed as GET /api/v1/deals/:id/activity-feed answers it. */
export const dealFeed = async (http: HttpClient, id: string): Promise<any[]> =>
  (await http.get(`/api/v1/deals/${id}/activity-feed`)).body.data;
