import { z } from 'zod';
import type { Context } from 'koa';
import { createContractChecker } from '../../api/docs/contract-check';
import { envelopes } from '../../platform/http/crud';
import { route, type RouteDef } from '../../platform/http/registry';

const widget = z.object({ _id: z.string(), name: z.string(), size: z.number().nullable() });

const routes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/api/v1/widgets/:id',
    section: 'Widgets',
    access: { scopes: ['read'] },
    summary: 'one',
    response: envelopes.data(widget),
    handler: async () => ({ status: 200, body: {} }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/widgets/:id/page',
    section: 'Widgets',
    access: { public: 'a page' },
    summary: 'page',
    response: { json: envelopes.data(widget), otherMedia: ['text/html'] },
    responses: { 303: { empty: true, description: 'to the page', headers: ['Location'] } },
    handler: async () => ({ status: 200, body: {} }),
  }),
];

/** The parts of a Koa context the checker reads. */
function answer(status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}) {
  return {
    status,
    body,
    response: { type, get: (name: string) => headers[name] ?? '' },
  } as unknown as Context;
}

describe('contract check', () => {
  const { check } = createContractChecker(routes);
  const [one, page] = routes as [RouteDef, RouteDef];

  it('accepts an answer as documented', () => {
    expect(check(one, answer(200, { data: { _id: 'a', name: 'n', size: null } }))).toBeUndefined();
    expect(check(page, answer(200, '<html></html>', 'text/html'))).toBeUndefined();
    expect(check(page, answer(303, ''))).toBeUndefined();
    expect(check(one, answer(404, { error: 'widget not found', code: 'not_found' }))).toBeUndefined();
  });

  it('refuses a renamed, missing or mistyped field, and an undocumented one', () => {
    expect(check(one, answer(200, { data: { _id: 'a', title: 'n', size: null } }))).toMatch(/name|title/);
    expect(check(one, answer(200, { data: { _id: 'a', name: 'n', size: '1' } }))).toMatch(/size/);
    expect(check(one, answer(200, { data: { _id: 'a', name: 'n', size: 1, extra: true } }))).toMatch(/extra/);
  });

  it('refuses an undocumented status or media type, an error without { error }, a 503 without Retry-After', () => {
    expect(check(one, answer(201, { data: {} }))).toMatch(/status 201 is not documented/);
    expect(check(one, answer(200, 'x', 'text/plain'))).toMatch(/media type/);
    expect(check(one, answer(400, { message: 'bad' }))).toMatch(/error/);
    expect(check(one, answer(503, { error: 'down' }))).toMatch(/Retry-After/);
    expect(check(one, answer(503, { error: 'down' }, 'application/json', { 'Retry-After': '5' }))).toBeUndefined();
    // Nothing to wait for when a provider is not configured.
    expect(check(one, answer(503, { error: 'set SMTP_URL', code: 'not_configured' }))).toBeUndefined();
    // A header with meaning (Location, Content-Disposition) must be documented where it is sent.
    expect(check(page, answer(303, '', 'application/json', { location: '/x' }))).toBeUndefined();
    expect(
      check(one, answer(200, { data: { _id: 'a', name: 'n', size: null } }, 'application/json', { location: '/x' })),
    ).toMatch(/header location is not documented/);
    // A public route has no 401.
    expect(check(page, answer(401, { error: 'no' }))).toMatch(/not documented/);
  });
});
