import { normalizePhone, tailDigits, type NormalizedPhone } from '../crm-connect/phone';

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
