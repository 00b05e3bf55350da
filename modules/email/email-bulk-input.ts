import type { Ctx } from '../../platform/context';
import { Company } from '../companies';
import { validation } from '../../platform/errors';
import { parseMailbox } from '../messaging';
import { MAX_EMAIL_BODY_BYTES, MAX_SUBJECT } from './email.service';
import { Person } from '../people';

// A bulk e-mail request and its checks: addresses, duplicates, sizes, the immediate limit, linked records.

export const MAX_BULK_EMAIL_RECIPIENTS = 500;
export const MAX_IMMEDIATE_RECIPIENTS = 10;

export interface BulkRecipientInput {
  email: string;
  name?: string;
  personId?: string;
  companyId?: string;
  personalizedSubject?: string;
  personalizedHtml?: string;
}

export interface BulkEmailInput {
  accountId: string;
  subject: string;
  html?: string;
  text?: string;
  recipients: BulkRecipientInput[];
  trackOpens?: boolean;
  immediate?: boolean;
}

type Issue = { path: string; error: string };

/** Checks a bulk request (pure): recipient addresses, duplicates, sizes and the immediate limit. */
export function checkBulkInput(input: BulkEmailInput): { recipients: BulkRecipientInput[]; duplicates: number } {
  const issues: Issue[] = [];
  if (!input.recipients.length) issues.push({ path: 'recipients', error: 'at least one recipient is required' });
  if (input.recipients.length > MAX_BULK_EMAIL_RECIPIENTS)
    issues.push({ path: 'recipients', error: `at most ${MAX_BULK_EMAIL_RECIPIENTS} recipients per bulk send` });
  if (input.immediate && input.recipients.length > MAX_IMMEDIATE_RECIPIENTS) {
    issues.push({
      path: 'immediate',
      error: `only sends to ${MAX_IMMEDIATE_RECIPIENTS} or fewer recipients can be immediate; leave it out to queue the send`,
    });
  }
  const subject = input.subject.trim();
  if (!subject) issues.push({ path: 'subject', error: 'is required' });
  if (/[\r\n]/.test(input.subject)) issues.push({ path: 'subject', error: 'must not contain line breaks' });
  if (subject.length > MAX_SUBJECT)
    issues.push({ path: 'subject', error: `must be at most ${MAX_SUBJECT} characters` });
  if (!input.html?.trim() && !input.text?.trim() && !input.recipients.every((r) => r.personalizedHtml?.trim()))
    issues.push({ path: 'html', error: 'html (or bodyHtml) or text is required' });
  if (Buffer.byteLength(input.html ?? '') + Buffer.byteLength(input.text ?? '') > MAX_EMAIL_BODY_BYTES)
    issues.push({ path: 'html', error: `html and text together must be at most ${MAX_EMAIL_BODY_BYTES} bytes` });
  const seen = new Set<string>();
  const recipients: BulkRecipientInput[] = [];
  let duplicates = 0;
  input.recipients.slice(0, MAX_BULK_EMAIL_RECIPIENTS).forEach((r, i) => {
    const parsed = parseMailbox(r.email);
    if ('error' in parsed) return void issues.push({ path: `recipients[${i}].email`, error: parsed.error });
    if (r.personalizedSubject !== undefined && /[\r\n]/.test(r.personalizedSubject))
      issues.push({ path: `recipients[${i}].personalizedSubject`, error: 'must not contain line breaks' });
    if (r.personalizedHtml !== undefined && Buffer.byteLength(r.personalizedHtml) > MAX_EMAIL_BODY_BYTES)
      issues.push({
        path: `recipients[${i}].personalizedHtml`,
        error: `must be at most ${MAX_EMAIL_BODY_BYTES} bytes`,
      });
    const key = parsed.mailbox.address.toLowerCase();
    // The same address twice in one send is one e-mail (the first entry's personalisation wins).
    if (seen.has(key)) return void duplicates++;
    seen.add(key);
    recipients.push({ ...r, email: parsed.mailbox.address, name: r.name?.trim() || parsed.mailbox.name || undefined });
  });
  if (issues.length) throw validation(`${issues[0]!.path}: ${issues[0]!.error}`, issues);
  return { recipients, duplicates };
}

/** personId / companyId of recipients must be records of the workspace (400 naming the entry). */
export async function checkRecipientLinks(ctx: Ctx, recipients: BulkRecipientInput[]): Promise<void> {
  const ids = (key: 'personId' | 'companyId') => [
    ...new Set(recipients.map((r) => r[key]).filter((v): v is string => !!v)),
  ];
  const people = ids('personId');
  const companies = ids('companyId');
  const foundPeople = new Set(
    people.length ? (await ctx.em.find(Person, { _id: { $in: people } }, { fields: ['_id'] })).map((p) => p._id) : [],
  );
  const foundCompanies = new Set(
    companies.length
      ? (await ctx.em.find(Company, { _id: { $in: companies } }, { fields: ['_id'] })).map((c) => c._id)
      : [],
  );
  const issues: Issue[] = [];
  recipients.forEach((r, i) => {
    if (r.personId && !foundPeople.has(r.personId))
      issues.push({ path: `recipients[${i}].personId`, error: `no person ${r.personId} in this workspace` });
    if (r.companyId && !foundCompanies.has(r.companyId))
      issues.push({ path: `recipients[${i}].companyId`, error: `no company ${r.companyId} in this workspace` });
  });
  if (issues.length) throw validation(`${issues[0]!.path}: ${issues[0]!.error}`, issues);
}
