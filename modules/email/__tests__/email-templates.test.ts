import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { renderEmailParts } from '../template-render';
import { expectCreated, expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s), { tenant: 'Templates' });

describe('/email-templates', () => {
  it('creates with category default other and a server-built compiledHtml', async () => {
    const res = await t.http.post('/api/v1/email-templates', {
      name: 'Welcome',
      bodyHtml: '<p>Hi {{contact.firstName | default:"there"}}</p>',
      bodyCss: 'p { color: red } </style><script>x</script>',
      metadata: { subject: 'Welcome {{contact.firstName}}', preheader: 'Glad you are here' },
      layoutSettings: { width: 'fixed', align: 'center', containerWidth: 640, backgroundColor: '#f0f0f0' },
      tags: ['onboarding'],
    });
    const tpl = expectCreated(res, {
      name: 'Welcome',
      category: 'other',
      tags: ['onboarding'],
      metadata: { subject: 'Welcome {{contact.firstName}}', preheader: 'Glad you are here' },
      projectData: null,
    });
    expect(tpl.compiledHtml).toMatch(/^<!DOCTYPE html>/);
    expect(tpl.compiledHtml).toContain('<p>Hi {{contact.firstName | default:"there"}}</p>');
    expect(tpl.compiledHtml).toContain('max-width:640px');
    expect(tpl.compiledHtml).toContain('Glad you are here');
    expect(tpl.compiledHtml).toContain('background-color:#f0f0f0');
    // CSS cannot close its <style> element.
    expect(tpl.compiledHtml).not.toContain('</style><script>');

    const patched = await t.http.patch(`/api/v1/email-templates/${tpl._id}`, {
      bodyHtml: '<h1>New</h1>',
      metadata: { preheader: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.compiledHtml).toContain('<h1>New</h1>');
    expect(patched.body.data.metadata).toEqual({ subject: 'Welcome {{contact.firstName}}', preheader: null });

    // A given compiledHtml is kept as given, also across later changes.
    const legacy = await t.http.patch(`/api/v1/email-templates/${tpl._id}`, { compiledHtml: '<html>legacy</html>' });
    expect(legacy.body.data.compiledHtml).toBe('<html>legacy</html>');
    expect(
      (await t.http.patch(`/api/v1/email-templates/${tpl._id}`, { bodyHtml: '<p>x</p>' })).body.data.compiledHtml,
    ).toBe('<html>legacy</html>');
    expect((await t.http.get(`/api/v1/email-templates/${tpl._id}`)).body.data.compiledHtml).toBe('<html>legacy</html>');
  });

  it.each(['marketing', 'transactional', 'reminder', 'follow-up', 'notification', 'quote', 'newsletter', 'other'])(
    'accepts category %s',
    async (category) => {
      expect(
        (await t.http.post('/api/v1/email-templates', { name: `C ${category}`, category, bodyHtml: '<p>x</p>' })).body
          .data.category,
      ).toBe(category);
    },
  );

  it.each([
    ['invalid category', { name: 'X', category: 'spam' }, /category/],
    ['no name', { bodyHtml: '<p>x</p>' }, /name/],
    ['empty name', { name: ' ' }, /name/],
    ['align without fixed width', { name: 'X', layoutSettings: { align: 'center' } }, /align/],
    ['bad width', { name: 'X', layoutSettings: { width: 'wide' } }, /width/],
    ['metadata not an object', { name: 'X', metadata: 'x' }, /metadata/],
    ['tags not strings', { name: 'X', tags: [1] }, /tags/],
  ])('refuses %s with 400', async (_n, body, message) => {
    expectError(await t.http.post('/api/v1/email-templates', body), 400, message);
  });

  it('writes need the owner or admin role; reads do not', async () => {
    const member = await app.key(t.workspaceId, ['read', 'write'], 'member');
    expect((await member.post('/api/v1/email-templates', { name: 'M' })).status).toBe(403);
    const id = (await t.http.post('/api/v1/email-templates', { name: 'Owned', category: 'quote' })).body.data._id;
    expect((await member.patch(`/api/v1/email-templates/${id}`, { name: 'Y' })).status).toBe(403);
    expect((await member.delete(`/api/v1/email-templates/${id}`)).status).toBe(403);
    expect((await member.get(`/api/v1/email-templates/${id}`)).status).toBe(200);
    const list = await member.get('/api/v1/email-templates?category=quote');
    expect(list.body.data.map((x: { _id: string }) => x._id)).toContain(id);
    expect((await t.http.delete(`/api/v1/email-templates/${id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/email-templates/${id}`)).status).toBe(404);
  });
});

describe('/email-signatures', () => {
  it('CRUD with required name and content', async () => {
    const created = await t.http.post('/api/v1/email-signatures', {
      name: 'Ann',
      content: '<p>Best, <b>Ann</b></p>',
      textContent: 'Best, Ann',
    });
    expect(created.status).toBe(201);
    const id = created.body.data._id;
    expect(created.body.data).toMatchObject({
      name: 'Ann',
      content: '<p>Best, <b>Ann</b></p>',
      textContent: 'Best, Ann',
      ownerId: t.userId,
    });
    expect((await t.http.put(`/api/v1/email-signatures/${id}`, { textContent: null })).body.data).toMatchObject({
      name: 'Ann',
      textContent: null,
    });
    expect((await t.http.get('/api/v1/email-signatures')).body.data.map((s: { _id: string }) => s._id)).toContain(id);
    expect((await t.http.delete(`/api/v1/email-signatures/${id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/email-signatures/${id}`)).status).toBe(404);
  });

  it.each([
    [{ content: '<p>x</p>' }, /name/],
    [{ name: 'X' }, /content/],
    [{ name: 'X', content: '  ' }, /content/],
  ])('refuses %j', async (body, message) => {
    expectError(await t.http.post('/api/v1/email-signatures', body), 400, message);
  });
});

describe('placeholder rendering', () => {
  it('renders contact fields and defaults, escaping values in html only', () => {
    const r = renderEmailParts(
      {
        subject: 'Hi {{contact.firstName}}',
        html: '<p>{{contact.firstName | default:"there"}} / {{contact.lastName | default:"friend"}}</p>',
        text: 'Hi {{contact.firstName}}',
      },
      { contact: { firstName: 'Ann <b>' } },
    );
    expect(r.subject).toBe('Hi Ann <b>');
    expect(r.html).toBe('<p>Ann &lt;b&gt; / friend</p>');
    expect(r.text).toBe('Hi Ann <b>');
  });
});
