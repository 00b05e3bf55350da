import type { HttpClient } from './app';

let seq = 0;
const unique = (): string => `${Date.now().toString(36)}${(++seq).toString(36)}`;

async function createVia(http: HttpClient, path: string, body: Record<string, unknown>): Promise<string> {
  const res = await http.post(path, body);
  if (res.status !== 201) throw new Error(`factory POST ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data._id as string;
}

/**
 * One factory per resource kind named in a route's `resources`; the tenant-isolation suite
 * fails for a route whose resource kind has no factory here.
 */
export const factories: Record<string, (http: HttpClient) => Promise<string>> = {
  company: (http) => createVia(http, '/api/v1/companies', { name: `Acme ${unique()}`, email: `info-${unique()}@acme.test`, tags: ['vip'] }),
  person: (http) => createVia(http, '/api/v1/people', { firstName: `Ada ${unique()}`, emails: [{ email: `ada-${unique()}@example.test`, label: 'work' }] }),
};

export const makeCompany = (http: HttpClient, body: Record<string, unknown> = {}) =>
  http.post('/api/v1/companies', { name: `Company ${unique()}`, ...body });
export const makePerson = (http: HttpClient, body: Record<string, unknown> = {}) =>
  http.post('/api/v1/people', { firstName: `Person ${unique()}`, ...body });
export { unique };
