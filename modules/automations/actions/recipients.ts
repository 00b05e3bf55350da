/**
 * Who an e-mail, SMS or call-back goes to, read from the run's context (lead, contact/person,
 * company). recipientField and phoneField name a source or an address label.
 */
import type { Context } from '../engine/types.pure';
import { recordIdOf } from './types';

type Rec = Record<string, unknown> | undefined;
interface Labelled {
  value: string;
  label: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

function personEmails(context: Context): Labelled[] {
  const person = (context.contact ?? context.person) as Rec;
  const list = Array.isArray(person?.emails) ? (person.emails as { email?: unknown; label?: unknown }[]) : [];
  return list.map((e) => ({ value: str(e.email) ?? '', label: str(e.label) })).filter((e) => e.value);
}

/**
 * Addresses for send_email. `recipientType` (leads): auto = the lead's own e-mail, else its
 * contact's, else its company's; contact / company pick that source. `recipientField`: primary
 * (first address of the source), person, company, a label (work, privat, faktura, …), any, all.
 */
export function emailRecipients(
  context: Context,
  recipientField: string,
  recipientType: string,
  to?: string,
): string[] {
  if (recipientField === 'custom')
    return (to ?? '')
      .split(/[,;]/)
      .map((s) => s.trim())
      .filter(Boolean);
  const lead = context.lead as Rec;
  const company = context.company as Rec;
  const contactList = personEmails(context);
  const leadEmail = str(lead?.email);
  const companyEmail = str(company?.email);
  const all = [leadEmail, ...contactList.map((e) => e.value), companyEmail].filter((v): v is string => !!v);
  switch (recipientField) {
    case 'person':
      return contactList.slice(0, 1).map((e) => e.value);
    case 'company':
      return companyEmail ? [companyEmail] : [];
    case 'any':
      return all.slice(0, 1);
    case 'all':
      return [...new Set(all)];
    case 'primary': {
      const bySource =
        recipientType === 'contact'
          ? contactList[0]?.value
          : recipientType === 'company'
            ? companyEmail
            : (leadEmail ?? contactList[0]?.value ?? companyEmail);
      return bySource ? [bySource] : [];
    }
    default: {
      const labelled = contactList.find((e) => e.label?.toLowerCase() === recipientField.toLowerCase())?.value;
      return labelled ? [labelled] : [];
    }
  }
}

/** The phone for send_sms / create_recall: mobile, a label, or primary (the first number found). */
export function phoneOf(context: Context, phoneField: string): string | null {
  const contact = (context.contact ?? context.person) as Rec;
  const lead = context.lead as Rec;
  const company = context.company as Rec;
  if (phoneField === 'mobile' && str(contact?.mobile)) return str(contact?.mobile);
  const phones = Array.isArray(contact?.phones) ? (contact.phones as { phone?: unknown; label?: unknown }[]) : [];
  const labelled = phones.find((p) => String(p.label ?? '').toLowerCase() === phoneField.toLowerCase())?.phone;
  if (phoneField !== 'primary' && phoneField !== 'all') return str(labelled);
  const candidates = [str(lead?.phone), str(contact?.phone), str(company?.phone)].filter((v): v is string => !!v);
  return candidates[0] ?? null;
}

/** Timeline links for a message: every CRM record the run holds. */
export function messageLinks(context: Context): {
  leadId?: string;
  personId?: string;
  companyId?: string;
  dealId?: string;
} {
  const out: Record<string, string> = {};
  const map = { lead: 'leadId', person: 'personId', company: 'companyId', deal: 'dealId' } as const;
  for (const [kind, key] of Object.entries(map) as [keyof typeof map, string][]) {
    const id = recordIdOf(context, kind);
    if (id) out[key] = id;
  }
  return out;
}
