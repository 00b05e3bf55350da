import type { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import type { Context } from 'koa';
import { DomainError } from '../../platform/errors';
import { processInbound, type InboundInput } from './inbound.service';
import { FREE_MAIL_DOMAINS } from './values';
import { fieldRows, toJsonSchema } from '../../platform/http/json-schema';
import { formatZodError } from '../../platform/shared/schemas';
import { created, ok, route } from '../../platform/http/registry';
import { normalizeInbound, type KeyTable } from './payload';
import {
  CONNECTOR_KEYS,
  connectorBody,
  INBOUND_KEYS,
  inboundBody,
  inboundDescriptionView,
  inboundResultView,
  type InboundDescriptionView,
} from './inbound.schemas';
import { envelopes } from '../../platform/http/crud';

const access = { scopes: ['inbound'] } as const;
const section = 'Inbound';

const PARSED_TYPES = ['json', 'urlencoded', 'text'];

/** Reads one of the accepted formats into canonical keys and validates it; nothing is written on a 400. */
function parseBody<S extends z.ZodType>(
  koa: Context,
  table: KeyTable,
  schema: S,
): { values: z.infer<S>; formLabel?: string } {
  if (koa.request.type && !koa.request.is(PARSED_TYPES)) {
    throw new DomainError(
      'validation',
      `unsupported content type ${koa.request.type}; send application/json, application/x-www-form-urlencoded or a form-builder JSON payload`,
    );
  }
  const normalized = normalizeInbound(koa.request.body, table);
  const parsed = schema.safeParse(normalized.values);
  if (!parsed.success) {
    const { message, details } = formatZodError(parsed.error, 'body');
    throw new DomainError('validation', message, details);
  }
  const given = Object.values(parsed.data as Record<string, unknown>).some((v) => v !== undefined);
  if (!given)
    throw new DomainError(
      'validation',
      'body: no inbound fields given; GET this endpoint for the accepted field names',
    );
  return { values: parsed.data, formLabel: normalized.formLabel };
}

const ANSWER =
  '201 { data: { company, person, lead, deal } }; each is null or { _id, action: "created" | "updated" | "matched", matchedBy? }';

function selfDescription(): InboundDescriptionView {
  return {
    endpoint: 'POST /api/v1/inbound',
    scope: 'inbound',
    formats: [
      {
        contentType: 'application/json',
        example: { companyName: 'Acme ApS', personEmail: 'jane@acme.dk', dealValue: 1234.5, tags: ['web'] },
      },
      {
        contentType: 'application/x-www-form-urlencoded',
        example:
          'companyName=Acme+ApS&personEmail=jane%40acme.dk&dealValue=1.234%2C50&tags=web,form&customFields[budget]=50000',
      },
      {
        contentType: 'application/json (form-builder webhook)',
        shape:
          '{ formId?, formName?, submittedAt?, fields: [{ name | key | label, value }] } or { data: { fields: [...] } }',
        example: {
          formId: 'contact-2026',
          fields: [
            { label: 'Company name', value: 'Acme ApS' },
            { name: 'email', value: 'jane@acme.dk' },
            { key: 'customFields.budget', value: 50000 },
          ],
        },
      },
    ],
    fieldNames:
      'matched case-insensitively, ignoring spaces, "-", "_" and "." ("Company name" = companyName); customFields.<key> or customFields[<key>] set one lead custom field; unknown names are ignored; "" counts as not given',
    aliases: INBOUND_KEYS.aliases,
    fields: fieldRows(toJsonSchema(inboundBody)),
    rules: {
      company:
        'found by exact companyCvr, else by e-mail domain (companyEmail, then personEmail; free-mail domains never match) against company e-mail and website domains, else by case-insensitive exact companyName; a company with a different CVR never matches by domain or name; the oldest match wins. Created only when companyName is given.',
      person:
        "found by personEmail among any of a person's e-mails (case-insensitive), else created when any person field is given (a missing first name is taken from the last name, the e-mail's local part or the phone). A found person at another company is linked to the matched company too.",
      updates:
        'found records are only filled in: empty fields get the submitted value, a new phone number is added; existing values are never overwritten (action "updated"; "matched" when nothing changed).',
      lead: 'always created, linked to the company and person; customFields and tags go on the lead; lead value = dealValue.',
      deal: "created when any deal field is given (dealTitle, dealValue, dealFlowId, dealStageId); title defaults to the lead title; lands in the default flow's first stage unless dealFlowId/dealStageId say otherwise.",
      atomicity:
        'one transaction: when any part fails (e.g. unknown dealStageId) nothing is written and the answer is 400.',
      dealValue:
        'a number, or a string in Danish or English notation: "1.234,50" and "1,234.50" are 1234.5, "1234,50" and "1234.50" too; a single separator is the decimal mark ("1.234" is 1.234).',
    },
    freeMailDomains: [...FREE_MAIL_DOMAINS],
    answer: ANSWER,
    connector: { endpoint: 'POST /api/v1/webhooks/connector', fields: fieldRows(toJsonSchema(connectorBody)) },
  };
}

export const inboundRoutes: RouteFactory = () => [
  route({
    method: 'POST',
    path: '/api/v1/inbound',
    section,
    access,
    body: inboundBody,
    rawBody: true,
    successStatus: 201,
    summary:
      'Create or find-and-update a company, person, lead and deal from one form submission or integration payload.',
    description: `JSON, form-urlencoded or a form-builder webhook payload (GET /api/v1/inbound describes the formats and matching rules). Answer: ${ANSWER}.`,
    response: envelopes.data(inboundResultView),
    handler: async ({ ctx, koa }) => {
      const { values, formLabel } = parseBody(koa, INBOUND_KEYS, inboundBody);
      return created(await processInbound(ctx, values as InboundInput, { defaultSource: formLabel ?? 'inbound' }));
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/inbound',
    section,
    access,
    summary: 'Self-description of POST /api/v1/inbound: formats, fields, matching rules, answer.',
    response: envelopes.data(inboundDescriptionView),
    handler: async () => ok(selfDescription()),
  }),
  route({
    method: 'POST',
    path: '/api/v1/webhooks/connector',
    section,
    access,
    body: connectorBody,
    rawBody: true,
    successStatus: 201,
    summary:
      'Automation-platform inbound: finds or creates the person (by e-mail), creates a lead and, with dealTitle or dealValue, a deal.',
    description: `Same formats, matching and atomicity as POST /api/v1/inbound. Answer: ${ANSWER} (company is null unless the e-mail domain matches a company).`,
    response: envelopes.data(inboundResultView),
    handler: async ({ ctx, koa }) => {
      const { values: v } = parseBody(koa, CONNECTOR_KEYS, connectorBody);
      const input: InboundInput = {
        personFirstName: v.firstName,
        personLastName: v.lastName,
        personEmail: v.email,
        personPhone: v.phone,
        leadTitle: v.leadTitle,
        leadSource: v.source,
        dealTitle: v.dealTitle,
        dealValue: v.dealValue,
      };
      return created(await processInbound(ctx, input, { defaultSource: 'connector', titlePrefix: 'Connector' }));
    },
  }),
];
