// The set-up the report test files share: a second member who owns some deals, and flows whose stage ids
// the deals are placed in by stage title.
import type { HttpClient, Tenant, TestApp } from '../../../test/support/app';
import { makeUser, type TestUser } from '../../../test/support/users';

/** Sal Seller, a member of `t`'s workspace (the reports' second deal owner). */
export const makeSeller = (app: TestApp, t: Tenant): Promise<TestUser> =>
  makeUser(app, t.workspaceId, 'member', { firstName: 'Sal', lastName: 'Seller', email: 'sal@acme.test' });

export interface CreatedFlow {
  id: string;
  /** Stage id by stage title. */
  stages: Record<string, string>;
}

/** A flow created through POST /api/v1/flows; the test fails unless 201. */
export async function createFlow(
  http: HttpClient,
  title: string,
  stages: readonly Record<string, unknown>[],
): Promise<CreatedFlow> {
  const res = await http.post('/api/v1/flows', { title, stages });
  expect(res.status).toBe(201);
  return {
    id: res.body.data._id,
    stages: Object.fromEntries(res.body.data.stages.map((s: any) => [s.title, s.id ?? s._id])),
  };
}
