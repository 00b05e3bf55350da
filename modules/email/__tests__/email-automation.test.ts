import { simpleParser } from 'mailparser';
import { EmailAccount } from '../email-account.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import type { Tenant } from '../../../test/support/app';
import { connectAccount, createTemplateToDelete } from '../../../test/support/email';
import { eventsFor } from '../../../test/support/outbox';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { action, chainGraph, createAutomation, type EngineHarness } from '../../../test/support/automation-engine';
import { withEngine } from '../../../test/support/engine-suite';

// Automation send_email with a template and a connected sender mailbox (fallback SMTP is a different server).
let h: EngineHarness;
let t: Tenant;
let fallback: LocalSmtp;
let mailbox: LocalSmtp;

beforeAll(async () => {
  fallback = await startSmtp();
  mailbox = await startSmtp({ user: 'mailer', password: 's3cret-smtp' });
});
withEngine('Automation mail', (s) => ({ h, t } = s), {
  env: () => ({ SMTP_URL: `smtp://127.0.0.1:${fallback.port}`, MAIL_FROM: 'CRM <crm@example.test>' }),
});
afterAll(async () => {
  await fallback?.close();
  await mailbox?.close();
});

async function run(config: Record<string, unknown>, leadId: string, beforeTrigger?: () => Promise<void>) {
  const id = await createAutomation(
    t.http,
    chainGraph({ triggerType: 'lead_created' }, [action('send_email', config)]),
  );
  await beforeTrigger?.();
  const done = await h.triggerRun(t.http, id, { entityType: 'lead', entityId: leadId });
  return { done, steps: await h.stepsOf(done._id) };
}

it('sends a template from the sender account, rendered for the run, with sourceRef = execution id', async () => {
  const account = (await connectAccount(h.app, t.workspaceId, mailbox.port)).account;
  const template = (
    await t.http.post('/api/v1/email-templates', {
      name: 'Follow up',
      category: 'follow-up',
      bodyHtml: '<p>Hi {{lead.title}}, {{contact.firstName | default:"friend"}}</p>',
      plainText: 'Hi {{lead.title}}',
      metadata: { subject: 'About {{lead.title}}' },
    })
  ).body.data;
  const lead = (await t.http.post('/api/v1/leads', { title: 'Bikes', email: 'buyer@example.test' })).body.data;
  const r = await run({ templateId: template._id, senderAccountId: account._id }, lead._id);
  expect(r.done.status).toBe('completed');
  expect(fallback.received.filter((m) => m.headers.subject === 'About Bikes')).toHaveLength(0);
  const [mail] = mailbox.received.filter((m) => m.headers.subject === 'About Bikes');
  expect(mail!.to).toEqual(['buyer@example.test']);
  expect(mail!.headers.from).toContain(String(account.emailAddress));
  const parsed = await simpleParser(mail!.raw);
  expect(parsed.html).toContain('<p>Hi Bikes, friend</p>');
  expect(parsed.text).toBe('Hi Bikes');
  const emailId = (r.steps.find((x) => x.nodeId === 'n1')!.output as { emailId: string }).emailId;
  const email = (await t.http.get(`/api/v1/emails/${emailId}`)).body.data;
  expect(email).toMatchObject({
    accountId: account._id,
    source: 'automation',
    sourceRef: r.done._id,
    leadId: lead._id,
    subject: 'About Bikes',
  });
  // The loop guard: both events of the send (written in the claim's and the outcome's one statement) carry the run.
  const orm = h.app.runtime.deps.orm;
  const sentEvent = (await eventsFor(orm, emailId)).find((e) => e.type === 'email_sent');
  const claimEvent = (await eventsFor(orm, email.activityId as string)).find((e) => e.type === 'activity_created');
  for (const ev of [sentEvent, claimEvent])
    expect(ev?.payload.causedBy).toMatchObject({ executionId: r.done._id, chain: [expect.any(String)] });
  expect(sentEvent!.payload).toMatchObject({
    outboundMessageId: emailId,
    email: { _id: emailId, subject: 'About Bikes', to: ['buyer@example.test'], threadId: emailId },
    links: { leadId: lead._id },
    source: 'automation',
    sourceRef: r.done._id,
  });
});

it('an unknown template or account is refused at save; one deleted later fails the step clearly and sends nothing', async () => {
  const unknown = await t.http.post('/api/v1/automations', {
    name: 'Unknown template',
    ...chainGraph({ triggerType: 'lead_created' }, [action('send_email', { templateId: '0123456789abcdef01234567' })]),
  });
  expect([unknown.status, unknown.body.details?.[0]?.field]).toEqual([400, 'templateId']);
  const lead = (await t.http.post('/api/v1/leads', { title: 'Nope', email: 'nope@example.test' })).body.data;
  const before = fallback.received.length + mailbox.received.length;
  const template = await createTemplateToDelete(t.http);
  const noTemplate = await run({ templateId: template._id }, lead._id, async () => {
    expect((await t.http.delete(`/api/v1/email-templates/${template._id}`)).status).toBe(200);
  });
  expect(noTemplate.done.status).toBe('failed');
  expect(noTemplate.steps.find((x) => x.nodeId === 'n1')!.error).toMatch(/template/);
  const gone = (await connectAccount(h.app, t.workspaceId, mailbox.port)).account;
  const noAccount = await run({ subject: 'Hi', body: '<p>Hi</p>', senderAccountId: gone._id }, lead._id, async () => {
    await forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId).nativeDelete(EmailAccount, { _id: gone._id });
  });
  expect(noAccount.done.status).toBe('failed');
  expect(noAccount.steps.find((x) => x.nodeId === 'n1')!.error).toMatch(/account/);
  expect(fallback.received.length + mailbox.received.length).toBe(before);
});
