import { simpleParser } from 'mailparser';
import type { Tenant, TestApp } from '../../../test/support/app';
import { eventsFor } from '../../../test/support/outbox';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { withMailbox } from '../../../test/support/mail-suite';

let app: TestApp;
let smtp: LocalSmtp;
let t: Tenant;
let accountId: string;
withMailbox('Tracking', (s) => ({ app, smtp, t, accountId } = s));

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};
const raw = (path: string) => fetch(app.baseUrl + path, { redirect: 'manual' });

it('tracks opens (first open emits email_opened) and clicks (302 to the original link only)', async () => {
  const subject = `Tracked ${Date.now()}`;
  const link = 'https://example.com/offer?id=7&x=1';
  const sent = (
    await t.http.post('/api/v1/emails', {
      accountId,
      to: 'ann@example.com',
      subject,
      html: `<p>See <a href="${link.replace('&', '&amp;')}">the offer</a></p>`,
      trackOpens: true,
    })
  ).body.data;
  expect(sent.trackOpens).toBe(true);
  // The stored body is what the caller wrote; the sent one carries the pixel and the redirect.
  expect(sent.html).not.toContain('/api/track/');
  const mail = await simpleParser(smtp.received.find((m) => m.headers.subject === subject)!.raw);
  const html = String(mail.html);
  const pixel = /<img src="([^"]+\/api\/track\/email\/open\/[^"]+)"/.exec(html)![1]!;
  const click = /<a href="([^"]+\/api\/track\/email\/click\/[^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');

  for (let i = 0; i < 2; i++) {
    const res = await raw(pathOf(pixel));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
  }
  const opened = (await t.http.get(`/api/v1/emails/${sent._id}`)).body.data;
  expect(opened.openCount).toBe(2);
  expect(opened.firstOpenedAt).toEqual(expect.any(String));

  const res = await raw(pathOf(click));
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe(link);
  const events = await eventsFor(app.runtime.deps.orm, sent._id);
  expect(events.filter((e) => e.type === 'email_opened')).toHaveLength(1);
  expect(events.find((e) => e.type === 'email_clicked')).toMatchObject({
    payload: { email: { _id: sent._id }, url: link, source: 'api' },
  });
  expect((await t.http.get(`/api/v1/emails/${sent._id}`)).body.data.clickCount).toBe(1);

  // No open redirect: another target with the same token, a forged token or none at all is 404.
  const token = new URL(click).pathname.split('/').pop()!;
  expect((await raw(`/api/track/email/click/${token}?u=${encodeURIComponent('https://evil.example/')}`)).status).toBe(
    404,
  );
  expect((await raw(`/api/track/email/click/${token}`)).status).toBe(404);
  // The forgery changes the last signature character whatever it was (a fixed "AA" suffix is the
  // genuine signature once in 4,096 runs).
  const forged = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
  expect((await raw(`/api/track/email/click/${forged}?u=${encodeURIComponent(link)}`)).status).toBe(404);
  // A forged pixel answers the GIF but counts nothing.
  expect((await raw(`/api/track/email/open/${forged}`)).status).toBe(200);
  expect((await t.http.get(`/api/v1/emails/${sent._id}`)).body.data.openCount).toBe(2);
});

it('sends without tracking unless asked', async () => {
  const subject = `Untracked ${Date.now()}`;
  await t.http.post('/api/v1/emails', {
    accountId,
    to: 'ann@example.com',
    subject,
    html: '<a href="https://example.com/">x</a>',
  });
  expect(smtp.received.find((m) => m.headers.subject === subject)!.raw).not.toContain('/api/track/');
});
