import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

describe('people', () => {
  it('creates a person with e-mails, phones, company and custom fields; links the company', async () => {
    const company = (await makeCompany(t.http, { name: 'Linked Co' })).body.data;
    // Stored and answered as sent.
    const echoed = {
      firstName: 'Grace',
      lastName: 'Hopper',
      title: 'CTO',
      companyId: company._id,
      phones: [{ phone: '+45 20 30 40 50', label: 'mobile' }],
      tags: ['speaker'],
    };
    const res = await t.http.post('/api/v1/people', {
      ...echoed,
      emails: [{ email: 'Grace@Navy.mil', label: 'work' }],
      customFields: { shoeSize: 38 },
    });
    const p = expectCreated(res, {
      ...echoed,
      emails: [{ email: 'grace@navy.mil', label: 'work' }],
      customFields: [{ name: 'shoeSize', value: 38 }],
    });
    expect((await t.http.get(`/api/v1/companies/${company._id}/people`)).body.data.map((x: any) => x._id)).toEqual([
      p._id,
    ]);
    expect((await t.http.get(`/api/v1/people/${p._id}/companies`)).body.data.map((x: any) => x._id)).toEqual([
      company._id,
    ]);
    expect((await eventsFor(app.runtime.deps.orm, p._id)).map((e) => e.type)).toEqual(['person_created', 'tag_added']);
  });

  const bad: [string, unknown, RegExp][] = [
    ['missing firstName', { lastName: 'x' }, /firstName/],
    ['firstName over 200', { firstName: 'x'.repeat(201) }, /firstName/],
    ['invalid e-mail item', { firstName: 'a', emails: [{ email: 'nope' }] }, /emails/],
    ['emails not an array', { firstName: 'a', emails: 'a@b.dk' }, /emails/],
    ['phone item missing phone', { firstName: 'a', phones: [{ label: 'x' }] }, /phones/],
    ['malformed companyId', { firstName: 'a', companyId: 'xyz' }, /companyId/],
    ['unknown companyId', { firstName: 'a', companyId: '0123456789abcdef01234567' }, /companyId/],
    ['avatar http', { firstName: 'a', avatar: 'http://x/y.png' }, /avatar/],
    [
      '21 e-mails',
      { firstName: 'a', emails: Array.from({ length: 21 }, (_, i) => ({ email: `a${i}@b.dk` })) },
      /emails/,
    ],
  ];
  it.each(bad)('400 for %s', async (_label, body, message) => {
    expectError(await t.http.post('/api/v1/people', body), 400, message);
  });

  it('updates partially, merges custom fields, searches by name and e-mail, filters by companyId', async () => {
    const mine = await app.tenant();
    const c = (await makeCompany(mine.http)).body.data;
    const p = (
      await makePerson(mine.http, {
        firstName: 'Linus',
        emails: [{ email: 'linus@kernel.example' }],
        customFields: [{ name: 'a', value: 1 }],
      })
    ).body.data;
    await makePerson(mine.http, { firstName: 'Other' });
    const upd = await mine.http.put(`/api/v1/people/${p._id}`, {
      title: 'Maintainer',
      companyId: c._id,
      customFields: { b: 2 },
    });
    expectOk(upd, {
      firstName: 'Linus',
      title: 'Maintainer',
      companyId: c._id,
      customFields: [
        { name: 'a', value: 1 },
        { name: 'b', value: 2 },
      ],
    });
    expect((await mine.http.get('/api/v1/people?q=kernel.example')).body.data.map((x: any) => x._id)).toEqual([p._id]);
    expect((await mine.http.get('/api/v1/people?q=LINUS')).body.total).toBe(1);
    expect((await mine.http.get(`/api/v1/people?companyId=${c._id}`)).body.data.map((x: any) => x._id)).toEqual([
      p._id,
    ]);
    expect((await mine.http.get(`/api/v1/companies/${c._id}/people`)).body.total).toBe(1);
    const feed = await mine.http.get(`/api/v1/people/${p._id}/activity-feed`);
    expect(feed.body.data.map((a: any) => a.type)).toEqual(['record_updated', 'record_created']);
    expect(feed.body.data[0].metadata.changes.title).toEqual({ from: null, to: 'Maintainer' });
    const summary = await mine.http.get('/api/v1/people?view=summary&limit=1');
    expect(Object.keys(summary.body.data[0]).sort()).toEqual(
      ['_id', 'companyId', 'emails', 'firstName', 'lastName', 'phones', 'title', 'updatedAt'].sort(),
    );
    expect((await mine.http.get(`/api/v1/people/${p._id}?fields=firstName`)).body.data).toEqual({
      _id: p._id,
      firstName: 'Linus',
    });
  });

  it('preview on POST and PUT writes nothing', async () => {
    const mine = await app.tenant();
    const res = await mine.http.post('/api/v1/people?preview=true', { firstName: 'Ghost' });
    expect(res.body.data).toMatchObject({ preview: true, current: null, proposed: { firstName: 'Ghost' } });
    expect((await mine.http.get('/api/v1/people')).body.total).toBe(0);
    const p = (await makePerson(mine.http, { firstName: 'Real' })).body.data;
    const put = await mine.http.put(`/api/v1/people/${p._id}`, { firstName: 'Changed', preview: true });
    expect(put.body.data.diff).toEqual({ firstName: { from: 'Real', to: 'Changed' } });
    expect((await mine.http.get(`/api/v1/people/${p._id}`)).body.data.firstName).toBe('Real');
  });

  it('list limits: 500 accepted, 501 refused', async () => {
    expect((await t.http.get('/api/v1/people?limit=500')).status).toBe(200);
    expectError(await t.http.get('/api/v1/people?limit=501'), 400, /at most 500/);
  });

  it('deletes a person: 200 { ok: true }, then 404; the company link is gone', async () => {
    const c = (await makeCompany(t.http)).body.data;
    const p = (await makePerson(t.http, { companyId: c._id })).body.data;
    const del = await t.http.delete(`/api/v1/people/${p._id}`);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/people/${p._id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/companies/${c._id}/people`)).body.total).toBe(0);
    for (const sub of ['companies', 'deals', 'activities', 'activity-feed']) {
      expect((await t.http.get(`/api/v1/people/${p._id}/${sub}`)).status).toBe(404);
    }
  });
});
