import type { RouteFactory } from '../../platform/http/app-deps';
import type { Ctx } from '../../platform/context';
import * as offers from './offers.service';
import { emailOffer, smsOffer } from './offer-messaging.service';
import { offerPreviewLink, previewKey } from './offer-public.service';
import { getOfferSettings, updateOfferSettings } from './offer-settings.service';
import { offerStatusTransitions } from './offers.rules';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import { envelopes } from '../../platform/http/crud';
import { acknowledged, created, ok, pageOf, route } from '../../platform/http/registry';
import {
  createOfferBody,
  listOffersQuery,
  offerIdParams,
  offerSettingsPatch,
  offerView,
  sendEmailBody,
  sendSmsBody,
  updateOfferBody,
} from './offers.schemas';
import { offerEmailResultView, offerPreviewLinkView, offerSettingsView, offerSmsResultView } from './offers.views';
import { admin, read, write } from '../../platform/http/access';

const section = 'Offers';
const resources = { id: 'offer' };
const transitions = [offerStatusTransitions];
const MONEY =
  'Money: unitPrice in major units with at most 6 decimals; each line net = quantity × unitPrice rounded to the minor unit (half away from zero), line VAT = net × vatRate / 100 rounded the same way; subtotal, vatAmount and total are exact sums of the rounded lines (also given as integer *Minor amounts).';
const STATUSES =
  'Statuses: draft, sent, accepted, declined, cancelled, expired (a sent offer past validUntil reads as expired).';

export const offersRoutes: RouteFactory = (deps) => {
  const links = { publicBaseUrl: deps.config.publicBaseUrl };
  const secrets = parseSecretsKey(deps.config.secretsKey);
  const key = secrets ? previewKey(secrets) : null;
  const emailDeps = {
    transport: deps.messaging.transport,
    accounts: deps.messaging.accounts,
    tracking: deps.messaging.tracking,
  };
  /** POST /offers/:id/<action>: a status change (offers.rules.ts transitions) that answers the offer. */
  const statusRoute = (
    action: 'send' | 'cancel',
    change: (ctx: Ctx, id: string, offerLinks: typeof links) => Promise<unknown>,
    docs: { summary: string; description?: string },
  ) =>
    route({
      method: 'POST',
      path: `/api/v1/offers/:id/${action}`,
      section,
      access: write,
      params: offerIdParams,
      resources,
      transitions,
      response: envelopes.data(offerView),
      ...docs,
      handler: async ({ ctx, params }) => ok(await change(ctx, params.id, links)),
    });
  return [
    route({
      method: 'GET',
      path: '/api/v1/workspace/offer-settings',
      section,
      access: read,
      response: envelopes.data(offerSettingsView),
      summary:
        'The workspace offer settings (created with defaults on first read): companyInfo, bankInfo, defaults, branding, emailSettings, smsSettings, acceptanceSettings, trackingSettings, sequenceSettings, orderConfirmationSettings, numbering { prefix, nextNumber }, contractSettings, defaultTerms, defaultPaymentTerms, lineItemUnits, billingFrequencies, setupCompleted.',
      handler: async ({ ctx }) => ok(await getOfferSettings(ctx)),
    }),
    route({
      method: 'PATCH',
      path: '/api/v1/workspace/offer-settings',
      section,
      access: admin,
      body: offerSettingsPatch,
      response: envelopes.data(offerSettingsView),
      summary:
        'Update offer settings (owner/admin): nested objects merge key by key, arrays replace; unknown top-level keys are 400. numbering.nextNumber sets the next offer number.',
      handler: async ({ ctx, body }) => ok(await updateOfferSettings(ctx, body as Record<string, unknown>)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/offers',
      section,
      access: read,
      query: listOffersQuery,
      response: envelopes.list(offerView),
      summary: 'Offers, newest first; filters status, companyRef, personRef, dealRef, q (title or offer number).',
      description: STATUSES,
      handler: async ({ ctx, query }) => pageOf(await offers.listOffers(ctx, query, links), query),
    }),
    route({
      method: 'POST',
      path: '/api/v1/offers',
      section,
      access: write,
      body: createOfferBody,
      successStatus: 201,
      response: envelopes.data(offerView),
      summary:
        'Create a draft offer: title required; lineItems (the server generates ids and computes per-line net and VAT, subtotal, vatAmount, total); companyRef/personRef/dealRef/templateId must exist (400).',
      description: `${MONEY} Default vatRate and currency come from offer-settings defaults. At most 500 line items.`,
      handler: async ({ ctx, body }) => created(await offers.createOffer(ctx, body, links)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/offers/:id',
      section,
      access: read,
      params: offerIdParams,
      resources,
      response: envelopes.data(offerView),
      summary: 'One offer, by `_id` or by its `publicId`.',
      handler: async ({ ctx, params }) => ok(await offers.readOffer(ctx, params.id, links)),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/offers/:id',
      section,
      access: write,
      params: offerIdParams,
      body: updateOfferBody,
      resources,
      transitions,
      response: envelopes.data(offerView),
      summary: 'Update a draft (partial; lineItems replaces every line and recomputes the totals). Not a draft: 409.',
      description: MONEY,
      handler: async ({ ctx, params, body }) => ok(await offers.updateOffer(ctx, params.id, body, links)),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/offers/:id',
      section,
      access: write,
      params: offerIdParams,
      resources,
      transitions,
      response: envelopes.ok,
      summary: 'Delete a draft. Not a draft: 409.',
      handler: async ({ ctx, params }) => {
        await offers.deleteOffer(ctx, params.id, links);
        return acknowledged();
      },
    }),
    statusRoute('send', offers.sendOffer, {
      summary:
        'Send a draft: takes the next offer number, freezes an immutable snapshot, returns publicId and publicUrl; timeline row on the linked records, automations (offer_sent) and the offer.sent webhook. Needs at least one line item (400); not a draft: 409.',
      description: 'validUntil defaults to today + offer-settings defaults.defaultValidityDays.',
    }),
    statusRoute('cancel', offers.cancelOffer, {
      summary:
        'Cancel a draft or sent offer (409 otherwise); its public link then shows it as cancelled without accept/decline.',
    }),
    route({
      method: 'POST',
      path: '/api/v1/offers/:id/send-email',
      section,
      access: write,
      params: offerIdParams,
      body: sendEmailBody,
      resources,
      transitions,
      response: envelopes.data(offerEmailResultView),
      errors: [502],
      summary:
        "E-mail the public link through the messaging layer (recorded on the linked timelines). emailTo defaults to the linked person's e-mail (400 without a recipient); senderAccountId a connected mailbox (default offer-settings emailSettings.senderAccountId, else the fallback sender); templateId an e-mail template (default emailSettings subject/body). A draft is sent first.",
      description:
        'Placeholders: {{offer.title}}, {{offer.offerNumber}}, {{offer.link}}, {{offer.total}}, {{offer.currency}}, {{offer.validUntil}}, {{contact.firstName}}, {{company.name}}. 503 not_configured without a sender.',
      handler: async ({ ctx, params, body }) => ok(await emailOffer(ctx, params.id, body, { email: emailDeps, links })),
    }),
    route({
      method: 'POST',
      path: '/api/v1/offers/:id/send-sms',
      section,
      access: { scopes: ['write', 'sms'] },
      params: offerIdParams,
      body: sendSmsBody,
      resources,
      transitions,
      response: envelopes.data(offerSmsResultView),
      errors: [502],
      summary:
        "SMS the public link through the SMS gateway (scopes write and sms, like every SMS send). phoneTo defaults to the linked person's phone (400 without one); text from offer-settings smsSettings.message. A draft is sent first. 503 not_configured without a gateway.",
      handler: async ({ ctx, params, body }) =>
        ok(await smsOffer(ctx, params.id, body, { gateway: deps.messaging.gateway, links })),
    }),
    route({
      method: 'GET',
      path: '/api/v1/offers/:id/preview-token',
      section,
      access: read,
      params: offerIdParams,
      resources,
      response: envelopes.data(offerPreviewLinkView),
      errors: [409],
      summary:
        'Draft: { kind: preview, url, token, expiresAt }, a signed preview URL valid for 1 hour (HMAC; 503 without CRM_SECRETS_KEY). Sent or later: { kind: public, url, publicId }. A cancelled never-sent draft: 409.',
      handler: async ({ ctx, params }) => ok(await offerPreviewLink(ctx, params.id, key, links)),
    }),
  ];
};
