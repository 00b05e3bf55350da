import { z } from 'zod';
import { parseDecimal, splitTags } from './values';
import { MAX_CUSTOM_FIELDS, MAX_TAGS, objectId } from '../../platform/shared/schemas';
import type { KeyTable } from './payload';
import { idView, openObjectView } from '../../platform/shared/views';
import { MAX_LEAD_NOTES, MAX_LEAD_VALUE } from '../leads';
import { ref } from '../../platform/references/refs';

// Form posts send "" for blank inputs: empty and whitespace-only values count as "not given".
const text = (max: number) =>
  z
    .string({ message: 'must be a string' })
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullish()
    .transform((v) => v || undefined);

const email = z
  .string({ message: 'must be a string' })
  .trim()
  .nullish()
  .transform((v) => v || undefined)
  .pipe(z.email({ message: 'must be a valid e-mail address' }).max(320, 'must be at most 320 characters').optional())
  .transform((v) => v?.toLowerCase());

/** A number, or a string in Danish or English notation ("1.234,50", "1234.50"); see parseDecimal. */
export const amount = z
  .union([z.number({ message: 'must be a number' }), z.string({ message: 'must be a number' })], {
    message: 'must be a number',
  })
  .nullish()
  .transform((v, ctx) => {
    if (v === null || v === undefined || (typeof v === 'string' && !v.trim())) return undefined;
    const n = typeof v === 'number' ? v : parseDecimal(v);
    if (n === undefined || !Number.isFinite(n)) {
      ctx.addIssue({ code: 'custom', message: 'must be a number (e.g. 1234.50 or 1.234,50)' });
      return z.NEVER;
    }
    return n;
  })
  .pipe(z.number().min(0, 'must be at least 0').max(MAX_LEAD_VALUE, `must be at most ${MAX_LEAD_VALUE}`).optional());

const tags = z
  .union(
    [
      z.string({ message: 'must be an array of strings or a comma-separated string' }),
      z.array(z.string({ message: 'tags must be strings' })),
    ],
    {
      message: 'must be an array of strings or a comma-separated string',
    },
  )
  .nullish()
  .transform((v) => (v ? splitTags(v) : undefined))
  .pipe(
    z
      .array(z.string().max(100, 'each tag must be at most 100 characters'))
      .max(MAX_TAGS, `at most ${MAX_TAGS} tags`)
      .optional(),
  );

const customFieldValue = z.union(
  [
    z.string().max(10_000),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(z.union([z.string().max(1000), z.number()])).max(100),
  ],
  {
    message: 'custom field values must be strings, numbers, booleans, null or arrays of strings/numbers',
  },
);
const customFields = z
  .record(z.string().min(1).max(100, 'custom field keys must be at most 100 characters'), customFieldValue, {
    message: 'must be an object of key → value',
  })
  .refine((o) => Object.keys(o).length <= MAX_CUSTOM_FIELDS, `at most ${MAX_CUSTOM_FIELDS} custom fields`)
  .optional();

const id = objectId
  .nullish()
  .or(z.literal('').transform(() => undefined))
  .transform((v) => v || undefined);

export const inboundShape = {
  companyName: text(300),
  companyCvr: text(50).describe('exact-match key: a company with this CVR is found first'),
  companyEmail: email.describe('its domain can identify the company (free-mail domains excepted)'),
  companyPhone: text(50),
  personFirstName: text(200),
  personLastName: text(200),
  personEmail: email.describe(
    'a person holding this address (any of their e-mails, case-insensitive) is found and updated',
  ),
  personPhone: text(50),
  personTitle: text(200),
  leadTitle: text(500).describe('generated as "Inbound: <person, company, e-mail or phone>" when omitted'),
  leadSource: text(100).describe('default "inbound" (form-builder payloads: the formName or formId)'),
  leadStatus: text(50),
  leadNotes: text(MAX_LEAD_NOTES),
  dealTitle: text(500).describe('a deal is created when any deal field is given; title defaults to the lead title'),
  dealValue: amount.describe('number, or a string in Danish or English notation: "1.234,50", "1234.50", "1 234,50"'),
  dealFlowId: ref('flow', id).describe('flow (pipeline) id; default: the default flow'),
  dealStageId: ref('stage', id).describe(
    "stage id; must belong to dealFlowId when both are given; default: the flow's first open stage",
  ),
  customFields: customFields.describe(
    'lead custom fields (key → value); also as customFields.<key> or customFields[<key>] fields',
  ),
  tags: tags.describe('string[] or a comma-separated string; set on the lead and the deal'),
};

export const inboundBody = z.object(inboundShape);
export type InboundBody = z.infer<typeof inboundBody>;

export const INBOUND_KEYS: KeyTable = {
  keys: Object.keys(inboundShape),
  // Common form labels (normalized: lower case, letters and digits only).
  aliases: {
    company: 'companyName',
    companyname: 'companyName',
    organisation: 'companyName',
    organization: 'companyName',
    cvr: 'companyCvr',
    cvrnumber: 'companyCvr',
    cvrnr: 'companyCvr',
    firstname: 'personFirstName',
    fornavn: 'personFirstName',
    lastname: 'personLastName',
    surname: 'personLastName',
    efternavn: 'personLastName',
    email: 'personEmail',
    emailaddress: 'personEmail',
    mail: 'personEmail',
    phone: 'personPhone',
    phonenumber: 'personPhone',
    telephone: 'personPhone',
    mobile: 'personPhone',
    telefon: 'personPhone',
    jobtitle: 'personTitle',
    message: 'leadNotes',
    notes: 'leadNotes',
    comment: 'leadNotes',
    besked: 'leadNotes',
    source: 'leadSource',
    status: 'leadStatus',
    value: 'dealValue',
    amount: 'dealValue',
  },
};

export const connectorShape = {
  firstName: text(200),
  lastName: text(200),
  email,
  phone: text(50),
  leadTitle: text(500).describe('generated as "Connector: <name, e-mail or phone>" when omitted'),
  dealTitle: text(500).describe('a deal is created when dealTitle or dealValue is given'),
  dealValue: amount.describe('number (numeric strings in Danish or English notation are accepted)'),
  source: text(100).describe('lead source; default "connector"'),
};
export const connectorBody = z.object(connectorShape);

export const CONNECTOR_KEYS: KeyTable = {
  keys: Object.keys(connectorShape),
  aliases: {
    fornavn: 'firstName',
    efternavn: 'lastName',
    mail: 'email',
    emailaddress: 'email',
    telephone: 'phone',
    phonenumber: 'phone',
    mobile: 'phone',
    value: 'dealValue',
    amount: 'dealValue',
  },
};

/** What inbound did with one record. */
export const inboundRefView = z.object({
  _id: idView,
  action: z
    .enum(['created', 'updated', 'matched'])
    .describe('updated: empty fields filled in; matched: nothing changed'),
  matchedBy: z
    .enum(['cvr', 'domain', 'name', 'email'])
    .optional()
    .describe('how an existing record was found (companies: cvr, domain or name; people: email)'),
});
export type InboundRefView = z.infer<typeof inboundRefView>;

/** The answer of POST /inbound and POST /webhooks/connector: each record or null when not touched. */
export const inboundResultView = z.object({
  company: inboundRefView.nullable(),
  person: inboundRefView.nullable(),
  lead: inboundRefView.nullable(),
  deal: inboundRefView.nullable(),
});
export type InboundResultView = z.infer<typeof inboundResultView>;

/** One row of a field table (name, JSON type, required, description). */
const fieldRowView = z.object({ name: z.string(), type: z.string(), required: z.boolean(), description: z.string() });

/** GET /inbound: the self-description of the POST. */
export const inboundDescriptionView = z.object({
  endpoint: z.string(),
  scope: z.literal('inbound'),
  formats: z.array(
    z.object({
      contentType: z.string(),
      shape: z.string().optional(),
      example: z.union([z.string(), openObjectView]).describe('an example body (form-urlencoded as a string)'),
    }),
  ),
  fieldNames: z.string().describe('how submitted names are matched to fields'),
  aliases: z.record(z.string(), z.string()).describe('accepted alias (normalized) → field name'),
  fields: z.array(fieldRowView),
  rules: z
    .object({
      company: z.string(),
      person: z.string(),
      updates: z.string(),
      lead: z.string(),
      deal: z.string(),
      atomicity: z.string(),
      dealValue: z.string(),
    })
    .describe('matching and creation rules, in words'),
  freeMailDomains: z.array(z.string()).describe('domains that never match a company'),
  answer: z.string().describe('shape of the answer'),
  connector: z.object({ endpoint: z.string(), fields: z.array(fieldRowView) }),
});
export type InboundDescriptionView = z.infer<typeof inboundDescriptionView>;
