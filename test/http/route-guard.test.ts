// Walks every route of the registry: slower as the API grows, so a generous per-test budget.
jest.setTimeout(180_000);
import { ROLES, SCOPES } from '../../platform/context';
import type { RouteDef } from '../../platform/http/registry';
import { startTestApp, type TestApp } from '../support/app';

// Walks the live route list, so routes added later are covered without touching this file.

/** The only routes that may answer without an API key (method + path, parameter names ignored). */
const ALLOWED_PUBLIC = [
  'GET /healthz',
  'GET /readyz',
  'GET /api/v1/docs',
  'GET /api/v1/docs/markdown',
  'GET /api/v1/images/:token',
  'POST /api/webhooks/automation/:automationId',
  'POST /api/webhooks/sms/:workspaceId',
  'POST /api/webhooks/email/inbound/:accountId',
  'GET /api/track/email/open/:token',
  'GET /api/track/email/click/:token',

  'GET /api/unsubscribe/:token',
  'POST /api/unsubscribe/:token',
  'GET /public/offers/preview/:token',
  'GET /public/offers/:publicId',
  'POST /public/offers/:publicId/accept',
  'POST /public/offers/:publicId/decline',
  'GET /public/contracts/sign/:token',
  'POST /public/contracts/sign/:token/sign',
  'POST /public/contracts/sign/:token/decline',
  'GET /public/contracts/sign/:token/document',
  'GET /api/files/download/:token',
  'PUT /api/files/upload/:token',
  // Booking attendees: the unguessable publicId is the capability.
  'GET /api/v1/public/bookings/:publicId',
  'GET /api/v1/public/bookings/:publicId/available-slots',
  'POST /api/v1/public/bookings/:publicId/cancel',
  'POST /api/v1/public/bookings/:publicId/reschedule',
  // Booking approvers from their e-mail: the signed, expiring link is the capability (GET never decides).
  'GET /api/v1/public/booking-decisions/:token',
  'POST /api/v1/public/booking-decisions/:token',
];

const SAMPLE_ID = '0123456789abcdef01234567';
const normalize = (method: string, path: string): string =>
  `${method.toUpperCase()} ${path.replace(/[:*][A-Za-z0-9_]+/g, ':')}`;
const label = (r: RouteDef): string => `${r.method} ${r.path}`;
const concretePath = (path: string): string => path.replace(/[:*][A-Za-z0-9_]+/g, SAMPLE_ID);
// Tolerates a missing declaration: such a route is reported by the access test and treated as guarded.
const isPublicRoute = (r: RouteDef): boolean =>
  Boolean(r.access && typeof r.access === 'object' && 'public' in r.access);

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const routes = (): RouteDef[] => app.runtime.routes;

describe('route guard', () => {
  it('has routes to walk, including the self-description', () => {
    expect(routes().length).toBeGreaterThan(3);
    expect(routes().map(label)).toEqual(expect.arrayContaining(['GET /api/v1/docs', 'GET /api/v1/docs/markdown']));
  });

  it('every route declares its access: a public reason, or known scopes and roles', () => {
    const problems: string[] = [];
    for (const r of routes()) {
      const access = r.access as unknown;
      if (!access || typeof access !== 'object') {
        problems.push(`${label(r)}: no access declaration`);
        continue;
      }
      const a = access as { public?: unknown; scopes?: unknown; roles?: unknown };
      const isPublic = 'public' in a;
      const hasScopes = 'scopes' in a;
      if (isPublic === hasScopes) problems.push(`${label(r)}: access must have exactly one of public or scopes`);
      if (isPublic && (typeof a.public !== 'string' || !a.public.trim()))
        problems.push(`${label(r)}: public access needs a reason`);
      if (hasScopes) {
        if (!Array.isArray(a.scopes)) problems.push(`${label(r)}: scopes must be an array`);
        else
          for (const s of a.scopes) if (!SCOPES.includes(s)) problems.push(`${label(r)}: unknown scope ${String(s)}`);
        if (a.roles !== undefined) {
          if (!Array.isArray(a.roles) || a.roles.length === 0)
            problems.push(`${label(r)}: roles, when given, must be a non-empty array`);
          else
            for (const role of a.roles)
              if (!ROLES.includes(role)) problems.push(`${label(r)}: unknown role ${String(role)}`);
        }
      }
      if (typeof r.section !== 'string' || !r.section.trim()) problems.push(`${label(r)}: no section`);
      if (typeof r.summary !== 'string' || !r.summary.trim()) problems.push(`${label(r)}: no summary`);
    }
    expect(problems).toEqual([]);
  });

  it('only the allowed routes are public', () => {
    const allowed = new Set(ALLOWED_PUBLIC.map((k) => normalize(...(k.split(' ') as [string, string]))));
    const unexpected = routes()
      .filter((r) => isPublicRoute(r) && !allowed.has(normalize(r.method, r.path)))
      .map(label);
    expect(unexpected).toEqual([]);
  });

  it('no two routes share method and path', () => {
    const seen = new Map<string, string>();
    const duplicates: string[] = [];
    for (const r of routes()) {
      const k = normalize(r.method, r.path);
      const before = seen.get(k);
      if (before) duplicates.push(`${label(r)} duplicates ${before}`);
      else seen.set(k, label(r));
    }
    expect(duplicates).toEqual([]);
  });

  it('every non-public route answers 401 { error } without a credential', async () => {
    const guarded = routes().filter((r) => !isPublicRoute(r));
    expect(guarded.length).toBeGreaterThan(0);
    const failures: string[] = [];
    const queue = [...guarded];
    const worker = async (): Promise<void> => {
      for (let r = queue.shift(); r; r = queue.shift()) {
        const path = concretePath(r.path);
        const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : {};
        const res = await app.anonymous.request(r.method, path, body);
        const ok = res.status === 401 && res.body && typeof res.body === 'object' && typeof res.body.error === 'string';
        if (!ok) failures.push(`${label(r)} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(failures).toEqual([]);
  });
});
