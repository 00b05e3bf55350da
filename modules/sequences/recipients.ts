/**
 * Who a sequence e-mail or SMS goes to: the contact (the enrolled person, a lead's or deal's
 * person, else the lead's own address), or the company (its own address, or contact people picked
 * by companyContactSelection with a fallback). Reads the step's context plus the company's people.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompanyPerson, Person } from '../people';

type Rec = Record<string, unknown> | undefined;
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
interface Labelled {
  value: string;
  label: string | null;
}

const list = (rec: Rec, key: 'emails' | 'phones', field: 'email' | 'phone'): Labelled[] =>
  (Array.isArray(rec?.[key]) ? (rec[key] as Record<string, unknown>[]) : [])
    .map((e) => ({ value: str(e[field]) ?? '', label: str(e.label) }))
    .filter((e) => e.value);

/** Decision makers for mode `beslutningstagere` (Danish: decision makers), matched on the title. */
const DECISION_MAKER_RE =
  /\b(ceo|cfo|cto|coo|owner|founder|partner|director|direkt\w*|chef|head|manager|leder|ejer|indehaver|vp|president|beslutningstager)\b/i;

export interface Selection {
  mode: string;
  titleFilter?: string | null;
  tagFilter?: string | null;
  fallback: string;
}

/** The company's people chosen by the selection mode (oldest link first). */
export async function companyContacts(
  em: EntityManager,
  companyId: string,
  sel: Selection,
): Promise<Record<string, unknown>[]> {
  const linked = await em.find(CompanyPerson, { companyId }, { fields: ['personId'], limit: 200 });
  const people = await em.find(
    Person,
    { $or: [{ companyId }, { _id: { $in: linked.map((l) => l.personId) } }] },
    { orderBy: { createdAt: 'asc', _id: 'asc' }, limit: 200 },
  );
  const views = people.map(
    (p) =>
      ({ ...p, emails: p.emails, phones: p.phones, title: p.title ?? null, tags: p.tags ?? [] }) as unknown as Record<
        string,
        unknown
      >,
  );
  const title = (p: Record<string, unknown>) => String(p.title ?? '');
  switch (sel.mode) {
    case 'all':
      return views;
    case 'beslutningstagere':
      return views.filter((p) => DECISION_MAKER_RE.test(title(p)));
    case 'byTitle':
      return views.filter((p) =>
        title(p)
          .toLowerCase()
          .includes(String(sel.titleFilter ?? '').toLowerCase()),
      );
    case 'byTag':
      return views.filter((p) =>
        (p.tags as string[]).some((t) => t.toLowerCase() === String(sel.tagFilter ?? '').toLowerCase()),
      );
    default:
      return views.slice(0, 1);
  }
}

function pickEmails(rec: Rec, field: string, fallbackOwn?: string | null): string[] {
  const emails = list(rec, 'emails', 'email');
  if (field === 'all') return [...new Set([...emails.map((e) => e.value), ...(fallbackOwn ? [fallbackOwn] : [])])];
  if (field === 'primary') return emails[0] ? [emails[0].value] : fallbackOwn ? [fallbackOwn] : [];
  const labelled = emails.find((e) => e.label?.toLowerCase() === field.toLowerCase());
  return labelled ? [labelled.value] : [];
}

function pickPhones(rec: Rec, field: string, own?: string | null): string[] {
  const phones = list(rec, 'phones', 'phone');
  if (field === 'all') return [...new Set([...phones.map((e) => e.value), ...(own ? [own] : [])])];
  if (field === 'primary') return phones[0] ? [phones[0].value] : own ? [own] : [];
  const want = field === 'mobile' ? /mobil/i : new RegExp(`^${field}$`, 'i');
  const labelled = phones.find((e) => want.test(e.label ?? ''));
  return labelled ? [labelled.value] : [];
}

export type RecipientResult = { to: string[]; via: string } | { skip: string };

interface RecipientData {
  recipientType: string;
  companyRecipientTarget: string;
  companyContactSelection: Selection;
}

/** Addresses (e-mail or phone) for a send step; `skip` names why there are none. */
export async function recipientsFor(
  em: EntityManager,
  context: Record<string, unknown>,
  d: RecipientData & { field: string; custom?: string | null },
  channel: 'email' | 'sms',
): Promise<RecipientResult> {
  if (d.field === 'custom') {
    const to = (d.custom ?? '')
      .split(/[,;]/)
      .map((s) => s.trim())
      .filter(Boolean);
    return to.length ? { to, via: 'custom' } : { skip: 'the custom recipient rendered empty' };
  }
  const pick = (rec: Rec, own?: string | null) =>
    channel === 'email' ? pickEmails(rec, d.field, own) : pickPhones(rec, d.field, own);
  const contact = (context.contact ?? context.person) as Rec;
  const lead = context.lead as Rec;
  const company = context.company as Rec;
  const companyOwn = str(channel === 'email' ? company?.email : company?.phone);
  const fromContact = (): string[] => {
    if (contact) {
      const own = pick(contact);
      if (own.length) return own;
    }
    // A lead without a person (or whose person has no address) is written to directly.
    return lead && (d.field === 'primary' || d.field === 'all')
      ? [str(channel === 'email' ? lead.email : lead.phone)].filter((v): v is string => !!v)
      : [];
  };
  const fromCompany = async (): Promise<RecipientResult> => {
    if (!company) return { skip: 'the enrolled record has no company' };
    if (d.companyRecipientTarget === 'company_direct')
      return companyOwn
        ? { to: [companyOwn], via: 'company' }
        : { skip: `the company has no ${channel === 'email' ? 'e-mail address' : 'phone number'}` };
    const people = await companyContacts(em, String(company._id), d.companyContactSelection);
    const to = [...new Set(people.flatMap((p) => pick(p)))];
    if (to.length) return { to, via: `company_contacts:${d.companyContactSelection.mode}` };
    const fb = d.companyContactSelection.fallback;
    if ((fb === 'company_email' || fb === 'company_phone') && companyOwn)
      return { to: [companyOwn], via: 'company_fallback' };
    return { skip: `no company contact matched selection mode ${d.companyContactSelection.mode} (fallback ${fb})` };
  };
  if (d.recipientType === 'company') return fromCompany();
  const direct = fromContact();
  if (direct.length) return { to: direct, via: contact ? 'contact' : 'lead' };
  if (d.recipientType === 'auto' || (!contact && !lead && company)) return fromCompany();
  return {
    skip: `the contact has no ${channel === 'email' ? 'e-mail address' : 'phone number'} for recipientField ${d.field}`,
  };
}
