import { normalizePhone, tailDigits, type NormalizedPhone } from '../crm-connect';
import type { MessageLinks } from './outbound-rows';

/**
 * The counterparty number of an SMS, kept in the crm-connect form (optional "+" and digits) so
 * threads, the phoneNumber filter and contact resolution all follow the same phone rule.
 */
export interface Counterparty {
  phoneNumber: string;
  phoneTail: string;
  normalized: NormalizedPhone;
}

export function counterpartyOf(raw: string): Counterparty | null {
  const normalized = normalizePhone(raw);
  if (!normalized) return null;
  return {
    phoneNumber: `${normalized.international ? '+' : ''}${normalized.digits}`,
    phoneTail: tailDigits(normalized),
    normalized,
  };
}

/** The columns of an SMS row that place it: its thread (the counterparty number) and the records it is linked to. */
export const smsThreadColumns = (counterparty: Counterparty, links: MessageLinks) => ({
  phoneNumber: counterparty.phoneNumber,
  phoneTail: counterparty.phoneTail,
  personId: links.personId ?? null,
  companyId: links.companyId ?? null,
  leadId: links.leadId ?? null,
  dealId: links.dealId ?? null,
});
