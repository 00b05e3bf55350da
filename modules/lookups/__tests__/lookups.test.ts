import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { expectOk, expectQueriesRefused } from '../../../test/support/expect';

// A local registry (cvrapi.dk-shaped) and Gravatar-protocol avatar service stand in for the providers.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3]);
const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

interface RegistryRow {
  vat: number;
  name: string;
  email?: string;
  website?: string;
  logo?: string;
  linkedin?: string;
  city?: string;
}
const registryRows: RegistryRow[] = [];
const requests: { url: string; auth?: string }[] = [];
const avatars = new Map<string, Buffer>();

let server: http.Server;
let base = '';
let app: TestApp;
let bare: TestApp;
let t: Tenant;
let other: Tenant;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ url: req.url ?? '', auth: req.headers.authorization });
    if (url.pathname === '/api') {
      const vat = url.searchParams.get('vat');
      const name = url.searchParams.get('name');
      const search = url.searchParams.get('search');
      const row = registryRows.find(
        (r) =>
          (vat && String(r.vat) === vat) ||
          (name && r.name.toLowerCase().includes(name.toLowerCase())) ||
          (search && JSON.stringify(r).includes(search)),
      );
      res.writeHead(row ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(row ?? { error: 'NOT_FOUND' }));
      return;
    }
    if (url.pathname === '/logo.png' || url.pathname.startsWith('/avatar/')) {
      const body = url.pathname === '/logo.png' ? PNG : avatars.get(url.pathname.slice('/avatar/'.length));
      if (!body || (url.pathname.startsWith('/avatar/') && url.searchParams.get('d') !== '404')) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'image/png' }).end(body);
      return;
    }
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await startTestApp({
    CVR_API_URL: `${base}/api`,
    CVR_API_TOKEN: 'registry-token',
    AVATAR_LOOKUP_URL: base,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  });
  bare = await startTestApp({ CVR_API_URL: '', AVATAR_LOOKUP_URL: 'off' });
  t = await app.tenant();
  other = await app.tenant();
});
afterAll(async () => {
  await app.close();
  await bare.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('GET /companies/lookup and /people/lookup', () => {
  it('finds a company by normalised profile URL or web domain, only in the own workspace', async () => {
    const acme = (
      await t.http.post('/api/v1/companies', {
        name: 'Acme ApS',
        website: 'https://www.Acme-Lookup.dk/about?x=1',
        profileUrl: 'https://dk.linkedin.com/company/Acme-Lookup/about/',
      })
    ).body.data;
    expect(acme.profileUrl).toBe('https://linkedin.com/company/acme-lookup');
    const mailOnly = (await t.http.post('/api/v1/companies', { name: 'Mail only', email: 'info@mailonly-lookup.dk' }))
      .body.data;

    for (const profile of [
      'https://www.linkedin.com/company/acme-lookup',
      'linkedin.com/company/ACME-LOOKUP/',
      'http://de.linkedin.com/company/acme-lookup/posts?trk=1',
    ]) {
      const res = await t.http.get(`/api/v1/companies/lookup?profile=${encodeURIComponent(profile)}`);
      expect([profile, res.status, res.body.matched, res.body.matchedOn, res.body.data?._id]).toEqual([
        profile,
        200,
        true,
        'profile',
        acme._id,
      ]);
    }
    for (const domain of [
      'acme-lookup.dk',
      'WWW.acme-lookup.dk',
      'https://acme-lookup.dk/contact',
      'acme-lookup.dk.',
    ]) {
      const res = await t.http.get(`/api/v1/companies/lookup?domain=${encodeURIComponent(domain)}`);
      expect([domain, res.body.matchedOn, res.body.data?._id]).toEqual([domain, 'domain', acme._id]);
    }
    expect((await t.http.get('/api/v1/companies/lookup?domain=mailonly-lookup.dk')).body.data._id).toBe(mailOnly._id);
    const none = await t.http.get('/api/v1/companies/lookup?domain=unknown-lookup.dk');
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ data: null, matched: false, matchedOn: null });
    // Tenancy: the other workspace does not see Acme.
    expect((await other.http.get('/api/v1/companies/lookup?domain=acme-lookup.dk')).body).toEqual({
      data: null,
      matched: false,
      matchedOn: null,
    });
  });

  it('finds a person by profile; profile is required', async () => {
    const jane = (
      await t.http.post('/api/v1/people', { firstName: 'Jane', profileUrl: 'www.linkedin.com/in/Jane-Doe-123/' })
    ).body.data;
    expect(jane.profileUrl).toBe('https://linkedin.com/in/jane-doe-123');
    const res = await t.http.get(
      `/api/v1/people/lookup?profile=${encodeURIComponent('https://dk.linkedin.com/in/jane-doe-123?miniProfile=1')}`,
    );
    expect(res.body).toMatchObject({ matched: true, matchedOn: 'profile', data: { _id: jane._id, firstName: 'Jane' } });
    expect((await other.http.get(`/api/v1/people/lookup?profile=linkedin.com/in/jane-doe-123`)).body.matched).toBe(
      false,
    );
  });

  it('answers 400 for missing or malformed keys and unknown parameters', async () => {
    for (const path of [
      '/api/v1/people/lookup',
      '/api/v1/people/lookup?profile=',
      '/api/v1/people/lookup?profile=not%20a%20url',
      '/api/v1/people/lookup?profile=https://linkedin.com/feed',
      '/api/v1/companies/lookup',
      '/api/v1/companies/lookup?domain=nodot',
      '/api/v1/companies/lookup?domain=a%20b.dk',
      '/api/v1/companies/lookup?domain=acme.dk&x=1',
    ]) {
      const res = await t.http.get(path);
      expect([path, res.status, typeof res.body.error]).toEqual([path, 400, 'string']);
    }
    expect((await t.http.post('/api/v1/companies', { name: 'Bad', profileUrl: 'ftp://x' })).status).toBe(400);
    expect(
      (await t.http.post('/api/v1/people', { firstName: 'Bad', profileUrl: 'https://linkedin.com/' })).status,
    ).toBe(400);
  });

  it('needs the read scope', async () => {
    const noRead = await app.key(t.workspaceId, ['write']);
    expect((await noRead.get('/api/v1/companies/lookup?domain=acme.dk')).status).toBe(403);
    expect((await noRead.get('/api/v1/people/lookup?profile=linkedin.com/in/x')).status).toBe(403);
  });
});

describe('GET /cvr/match', () => {
  it('matches through the workspace company cvr, an exact name, or a domain the registry confirms', async () => {
    registryRows.push(
      { vat: 11111111, name: 'Registry Match A/S', email: 'info@registry-match.dk', city: 'Aarhus' },
      {
        vat: 22222222,
        name: 'Other Name ApS',
        website: 'www.other-match.dk',
        linkedin: 'https://www.linkedin.com/company/other-match',
      },
    );
    const local = (
      await t.http.post('/api/v1/companies', { name: 'Local', cvr: '11111111', website: 'local-match.dk' })
    ).body.data;
    const byDomain = await t.http.get('/api/v1/cvr/match?domain=https://www.local-match.dk');
    expect(byDomain.status).toBe(200);
    expect(byDomain.body).toMatchObject({
      matched: true,
      matchedOn: 'cvr',
      companyId: local._id,
      data: { cvr: '11111111', name: 'Registry Match A/S', city: 'Aarhus', email: 'info@registry-match.dk' },
    });
    expect(requests.at(-1)).toMatchObject({ auth: 'Bearer registry-token' });
    expect(requests.at(-1)!.url).toContain('vat=11111111');

    expect((await t.http.get('/api/v1/cvr/match?name=registry%20match%20a%2Fs')).body).toMatchObject({
      matched: true,
      matchedOn: 'name',
      data: { cvr: '11111111' },
    });
    // Exact: a registry hit with a longer name is no match.
    expect((await t.http.get('/api/v1/cvr/match?name=Registry%20Match')).body).toEqual({
      data: null,
      matched: false,
      matchedOn: null,
      companyId: null,
    });
    expect((await t.http.get('/api/v1/cvr/match?domain=other-match.dk')).body).toMatchObject({
      matched: true,
      matchedOn: 'domain',
      data: {
        cvr: '22222222',
        website: 'https://other-match.dk',
        profileUrl: 'https://linkedin.com/company/other-match',
      },
    });
    expect((await t.http.get('/api/v1/cvr/match?domain=nobody-match.dk')).body.matched).toBe(false);
    // Another workspace's company does not lend its cvr.
    expect((await other.http.get('/api/v1/cvr/match?domain=local-match.dk')).body).toMatchObject({
      matched: false,
      companyId: null,
    });
  });

  it('answers 400 without any key and 503 not_configured without CVR_API_URL', async () => {
    const badQueries = ['', '?name=', '?domain=x', '?profile=https://linkedin.com/feed', '?cvr=1'];
    await expectQueriesRefused(t.http, '/api/v1/cvr/match', badQueries);
    const tb = await bare.tenant();
    const res = await tb.http.get('/api/v1/cvr/match?name=Acme');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('not_configured');
    expect(res.body.error).toContain('CVR_API_URL');
    expect((await tb.http.get('/api/v1/cvr/match')).status).toBe(400);
  });
});

describe('POST /companies/:id/find-web-presence', () => {
  it('fills the website from the e-mail domain without a provider, and never overwrites', async () => {
    const tb = await bare.tenant();
    const c = (await tb.http.post('/api/v1/companies', { name: 'Mailer', email: 'sales@www.mailer-presence.dk' })).body
      .data;
    const res = await tb.http.post(`/api/v1/companies/${c._id}/find-web-presence`);
    expectOk(res, {
      status: 'updated',
      filled: ['website'],
      sources: { website: 'email_domain' },
      company: { website: 'https://mailer-presence.dk' },
    });
    expect(res.body.data.hint).toContain('CVR_API_URL');
    expect((await tb.http.get(`/api/v1/companies/${c._id}`)).body.data.website).toBe('https://mailer-presence.dk');

    // Free-mail company address: its people's company domain wins.
    const p = (await tb.http.post('/api/v1/companies', { name: 'People co', email: 'peopleco@gmail.com' })).body.data;
    await tb.http.post('/api/v1/people', {
      firstName: 'A',
      companyId: p._id,
      emails: [{ email: 'a@hotmail.com' }, { email: 'a@peopleco-presence.dk' }],
    });
    await tb.http.post('/api/v1/people', {
      firstName: 'B',
      companyId: p._id,
      emails: [{ email: 'b@peopleco-presence.dk' }],
    });
    expect((await tb.http.post(`/api/v1/companies/${p._id}/find-web-presence`)).body.data.company.website).toBe(
      'https://peopleco-presence.dk',
    );

    const nothing = (await tb.http.post('/api/v1/companies', { name: 'Nothing', email: 'x@gmail.com' })).body.data;
    const nf = await tb.http.post(`/api/v1/companies/${nothing._id}/find-web-presence`);
    expect(nf.body.data).toMatchObject({ status: 'not_found', filled: [] });
    expect(nf.body.data.hint).toMatch(/CVR_API_URL/);
  });

  it('fills website, logo and profile link from the registry; already_filled when all set', async () => {
    registryRows.push({
      vat: 33333333,
      name: 'Presence Registry ApS',
      website: 'presence-registry.dk',
      logo: `${base}/logo.png`,
      linkedin: 'linkedin.com/company/presence-registry',
    });
    const c = (await t.http.post('/api/v1/companies', { name: 'Presence Registry ApS', cvr: '33333333' })).body.data;
    // The logo URL is http on 127.0.0.1: the re-hosting rules (https only) refuse it, the rest is filled.
    const first = await t.http.post(`/api/v1/companies/${c._id}/find-web-presence`);
    expect(first.body.data).toMatchObject({
      status: 'updated',
      sources: { website: 'registry', profileUrl: 'registry' },
      company: {
        website: 'https://presence-registry.dk',
        profileUrl: 'https://linkedin.com/company/presence-registry',
        logoUrl: null,
      },
    });
    expect(first.body.data.hint).toMatch(/logoUrl/);
    const kept = (
      await t.http.post('/api/v1/companies', {
        name: 'Kept',
        website: 'kept.dk',
        logoUrl: `data:image/png;base64,${PNG.toString('base64')}`,
        profileUrl: 'linkedin.com/company/kept',
      })
    ).body.data;
    const filled = await t.http.post(`/api/v1/companies/${kept._id}/find-web-presence`);
    expect(filled.body.data).toMatchObject({ status: 'already_filled', filled: [], company: { website: 'kept.dk' } });
  });

  it('404 for another workspace, 403 without write', async () => {
    const c = (await t.http.post('/api/v1/companies', { name: 'Mine' })).body.data;
    expect((await other.http.post(`/api/v1/companies/${c._id}/find-web-presence`)).status).toBe(404);
    expect((await t.http.post('/api/v1/companies/000000000000000000000000/find-web-presence')).status).toBe(404);
    expect((await t.http.post('/api/v1/companies/nope/find-web-presence')).status).toBe(404);
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.post(`/api/v1/companies/${c._id}/find-web-presence`)).status).toBe(403);
  });
});

describe('POST /people/:id/find-avatar', () => {
  it('fills an empty avatar from the public avatar of an e-mail address', async () => {
    avatars.set(md5('second@avatar.dk'), PNG);
    const p = (
      await t.http.post('/api/v1/people', {
        firstName: 'Ava',
        emails: [{ email: 'first@avatar.dk' }, { email: 'Second@Avatar.dk' }],
      })
    ).body.data;
    const res = await t.http.post(`/api/v1/people/${p._id}/find-avatar`);
    expectOk(res, { status: 'updated', source: 'gravatar' });
    const avatar = res.body.data.person.avatar as string;
    expect(avatar).toMatch(/\/api\/v1\/images\/[0-9a-f]{64}$/);
    const image = await fetch(avatar.replace(/^https?:\/\/[^/]+/, app.baseUrl));
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PNG);
    expect((await t.http.post(`/api/v1/people/${p._id}/find-avatar`)).body.data).toMatchObject({
      status: 'already_filled',
    });
  });

  it('not_found with a hint when nothing is public, when there is no e-mail, or when switched off', async () => {
    const p = (await t.http.post('/api/v1/people', { firstName: 'Nobody', emails: [{ email: 'nobody@avatar.dk' }] }))
      .body.data;
    const res = await t.http.post(`/api/v1/people/${p._id}/find-avatar`);
    expect(res.body.data).toMatchObject({ status: 'not_found', source: null, person: { avatar: null } });
    expect(res.body.data.hint).toMatch(/upload/);
    const noMail = (await t.http.post('/api/v1/people', { firstName: 'No mail' })).body.data;
    expect((await t.http.post(`/api/v1/people/${noMail._id}/find-avatar`)).body.data.hint).toMatch(/no e-mail/);
    const tb = await bare.tenant();
    const off = (await tb.http.post('/api/v1/people', { firstName: 'Off', emails: [{ email: 'second@avatar.dk' }] }))
      .body.data;
    expect((await tb.http.post(`/api/v1/people/${off._id}/find-avatar`)).body.data).toMatchObject({
      status: 'not_found',
    });
    expect((await other.http.post(`/api/v1/people/${p._id}/find-avatar`)).status).toBe(404);
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.post(`/api/v1/people/${p._id}/find-avatar`)).status).toBe(403);
  });
});
