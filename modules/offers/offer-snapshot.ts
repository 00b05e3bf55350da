import type { Ctx } from '../../platform/context';
import { Company } from '../companies';
import { Deal } from '../deals';
import { Person } from '../people';
import { toPlain } from '../../platform/shared/listing';
import { fromMinor, minorDigits } from '../../platform/shared/money';
import { lineView } from './offer-lines';
import { Offer, OfferTemplate } from './offer.entity';

// The records an offer links to, and the snapshot a sent offer freezes for its recipient.

/** The person an offer is for as its snapshot and its messages show them: name, title, first e-mail and phone. */
export const offerContact = (person: Person) => ({
  firstName: person.firstName,
  lastName: person.lastName,
  title: person.title,
  email: person.emails[0]?.email ?? null,
  phone: person.phones[0]?.phone ?? null,
});

export async function related(ctx: Ctx, offer: Offer) {
  const [company, person, deal, template] = await Promise.all([
    offer.companyRef ? ctx.em.findOne(Company, { _id: offer.companyRef }) : null,
    offer.personRef ? ctx.em.findOne(Person, { _id: offer.personRef }) : null,
    offer.dealRef ? ctx.em.findOne(Deal, { _id: offer.dealRef }) : null,
    offer.templateId ? ctx.em.findOne(OfferTemplate, { _id: offer.templateId }) : null,
  ]);
  return { company, person, deal, template };
}

/** What the recipient sees, frozen at send: no internal ids beyond the offer's own. */
export async function buildSnapshot(
  ctx: Ctx,
  offer: Offer,
  settings: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { company, person, template } = await related(ctx, offer);
  const digits = minorDigits(offer.currency);
  const pick = <T extends object>(row: T | null, keys: (keyof T & string)[]) => (row ? toPlain(row, keys) : null);
  const personView = person ? offerContact(person) : null;
  return {
    offerNumber: offer.offerNumber,
    title: offer.title,
    currency: offer.currency,
    lineItems: offer.lineItems.map((l) => {
      const { productId: _p, ...rest } = lineView(l, digits);
      return rest;
    }),
    subtotal: fromMinor(offer.subtotalMinor, digits),
    vatAmount: fromMinor(offer.vatMinor, digits),
    total: fromMinor(offer.totalMinor, digits),
    subtotalMinor: offer.subtotalMinor,
    vatMinor: offer.vatMinor,
    totalMinor: offer.totalMinor,
    validUntil: offer.validUntil,
    sentAt: offer.sentAt?.toISOString() ?? null,
    quoteInput: offer.quoteInput,
    customer: {
      company: pick(company, ['name', 'cvr', 'address', 'zip', 'city', 'country', 'email', 'phone']),
      person: personView,
    },
    seller: {
      companyInfo: settings.companyInfo ?? {},
      bankInfo: settings.bankInfo ?? {},
      branding: { ...(settings.branding as object), ...(template?.branding ?? {}) },
    },
    template: template
      ? {
          name: template.name,
          pages: template.pages,
          headerElements: template.headerElements,
          footerElements: template.footerElements,
        }
      : null,
    terms: template?.defaultTerms ?? settings.defaultTerms ?? null,
    paymentTerms:
      template?.defaultPaymentTerms ??
      settings.defaultPaymentTerms ??
      (settings.defaults as Record<string, unknown> | undefined)?.paymentTerms ??
      null,
    acceptance: settings.acceptanceSettings ?? {},
  };
}
