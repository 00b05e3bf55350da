import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import { renderTemplate } from '../../platform/shared/placeholders.pure';
import { Company } from '../companies';
import { accountForSend, renderEmailParts, renderStoredTemplate, sendEmail, type EmailDeps } from '../email';
import { sendSms, type SmsGateway } from '../messaging';
import { Person } from '../people';
import { toPlain } from '../../platform/shared/listing';
import { fromMinor, minorDigits } from '../../platform/shared/money';
import type { Offer } from './offer.entity';
import { getOfferSettings } from './offer-settings.service';
import { getOffer, publicOfferUrl, sendOffer, serializeOffer, type OfferLinks } from './offers.service';
import type { OfferEmailResultView, OfferSmsResultView } from './offers.views';
import { effectiveStatus, offerCanGoOut } from './offers.rules';
import { offerContact } from './offer-snapshot';

/**
 * Offers go out through the one messaging layer: the e-mail (or SMS) is recorded on the linked
 * records' timelines like any other send. A draft is sent first (number, publicId, snapshot), but
 * only after the recipient and the sender were checked, so a 400 leaves the draft untouched.
 */

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);

async function recipientContext(ctx: Ctx, offer: Offer) {
  const person = offer.personRef ? await ctx.em.findOne(Person, { _id: offer.personRef }) : null;
  const company = offer.companyRef ? await ctx.em.findOne(Company, { _id: offer.companyRef }) : null;
  const contact = person ? offerContact(person) : null;
  return {
    person,
    contact,
    company: company ? toPlain(company, ['_id', 'name', 'email', 'phone', 'city', 'country']) : null,
  };
}

function templateContext(
  offer: Offer,
  links: OfferLinks,
  r: Awaited<ReturnType<typeof recipientContext>>,
): Record<string, unknown> {
  const digits = minorDigits(offer.currency);
  return {
    offer: {
      title: offer.title,
      offerNumber: offer.offerNumber,
      link: offer.publicId ? publicOfferUrl(links, offer.publicId) : null,
      total: fromMinor(offer.totalMinor, digits),
      subtotal: fromMinor(offer.subtotalMinor, digits),
      currency: offer.currency,
      validUntil: offer.validUntil,
    },
    ...(r.contact ? { contact: r.contact, person: r.contact } : {}),
    ...(r.company ? { company: r.company } : {}),
  };
}

/** Draft → sent first; sent → as is; anything else cannot go out again (409). */
async function ensureSent(ctx: Ctx, offer: Offer, links: OfferLinks): Promise<Offer> {
  const status = effectiveStatus(offer);
  if (status === 'draft') {
    await sendOffer(ctx, offer._id, links);
    return getOffer(ctx, offer._id);
  }
  if (!offerCanGoOut(status))
    throw new DomainError(
      'invalid_state',
      `status: the offer is ${status}; only draft or sent offers can be sent to the customer`,
      { current: status },
    );
  return offer;
}

export interface OfferEmailInput {
  emailTo?: string;
  senderAccountId?: string;
  templateId?: string;
}

/** The offer to e-mail or text (404 first), if its status lets it go out (draft or sent), with its recipients. */
async function outgoingOffer(ctx: Ctx, id: string, sent: 'e-mailed' | 'sent by SMS') {
  const offer = await getOffer(ctx, id);
  const status = effectiveStatus(offer);
  if (!offerCanGoOut(status))
    throw new DomainError('invalid_state', `status: the offer is ${status}; only draft or sent offers can be ${sent}`, {
      current: status,
    });
  return { offer, recipients: await recipientContext(ctx, offer) };
}

/** The records whose timelines show the message: the offer's person, company and deal. */
const messageLinks = (offer: Offer) => ({
  personId: offer.personRef ?? undefined,
  companyId: offer.companyRef ?? undefined,
  dealId: offer.dealRef ?? undefined,
});

export async function emailOffer(
  ctx: Ctx,
  id: string,
  input: OfferEmailInput,
  deps: { email: EmailDeps; links: OfferLinks },
): Promise<OfferEmailResultView> {
  const { offer: found, recipients } = await outgoingOffer(ctx, id, 'e-mailed');
  const to = input.emailTo ?? recipients.contact?.email ?? undefined;
  if (!to)
    throw validation('emailTo: no recipient: give emailTo or link a person with an e-mail address (personRef)', [
      { path: 'emailTo', error: 'is required when the offer has no person with an e-mail' },
    ]);
  const settings = await getOfferSettings(ctx);
  const emailSettings = (settings.emailSettings ?? {}) as Record<string, unknown>;
  const accountId = input.senderAccountId ?? str(emailSettings.senderAccountId);
  if (accountId)
    await accountForSend(ctx, accountId, {
      asUser: true,
      field: input.senderAccountId ? 'senderAccountId' : 'emailSettings.senderAccountId',
    });
  else deps.email.transport.assertConfigured?.();
  if (input.templateId) await renderStoredTemplate(ctx, input.templateId, {});
  const offer = await ensureSent(ctx, found, deps.links);
  const context = templateContext(offer, deps.links, recipients);
  const rendered = input.templateId
    ? await renderStoredTemplate(ctx, input.templateId, context)
    : renderEmailParts(
        {
          subject: str(emailSettings.subject) ?? 'Offer {{offer.offerNumber}}',
          html: str(emailSettings.body) ?? '<p><a href="{{offer.link}}">{{offer.link}}</a></p>',
        },
        context,
      );
  const sent = await sendEmail(
    ctx,
    {
      to: [to],
      subject: rendered.subject || offer.title,
      html: rendered.html,
      text: rendered.text,
      accountId,
      accountAccess: 'user',
      source: 'api',
      links: messageLinks(offer),
    },
    deps.email,
  );
  return {
    offer: serializeOffer(offer, deps.links),
    email: { _id: sent.emailId, to, messageId: sent.messageId, accepted: sent.accepted, rejected: sent.rejected },
  };
}

export async function smsOffer(
  ctx: Ctx,
  id: string,
  input: { phoneTo?: string },
  deps: { gateway: SmsGateway; links: OfferLinks },
): Promise<OfferSmsResultView> {
  const { offer: found, recipients } = await outgoingOffer(ctx, id, 'sent by SMS');
  const to = input.phoneTo ?? recipients.contact?.phone ?? undefined;
  if (!to)
    throw validation('phoneTo: no recipient: give phoneTo or link a person with a phone number (personRef)', [
      { path: 'phoneTo', error: 'is required when the offer has no person with a phone' },
    ]);
  deps.gateway.assertConfigured?.();
  const offer = await ensureSent(ctx, found, deps.links);
  const settings = await getOfferSettings(ctx);
  const template =
    str((settings.smsSettings as Record<string, unknown> | undefined)?.message) ?? 'Your offer: {{offer.link}}';
  const message = renderTemplate(template, templateContext(offer, deps.links, recipients)).text;
  const sent = await sendSms(
    ctx,
    {
      to,
      message,
      source: 'api',
      links: messageLinks(offer),
    },
    { gateway: deps.gateway },
  );
  return {
    offer: serializeOffer(offer, deps.links),
    sms: { _id: sent.smsId, to: sent.to, status: sent.status, providerMessageId: sent.providerMessageId },
  };
}
