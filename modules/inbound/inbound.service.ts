import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import { createCompany, updateCompany, type Company, type CompanyInput, type ImageResolver } from '../companies';
import { createLead } from '../leads';
import { createPerson, linkPerson, updatePerson, type Person, type PersonInput } from '../people';
import { createDeal } from '../deals';
import { inTransaction } from '../../platform/shared/tx';
import { matchCompany, matchPersonByEmail } from './matching';
import type { InboundRefView, InboundResultView } from './inbound.schemas';

/** One inbound submission in canonical keys (spec: POST /inbound); every key is optional. */
export interface InboundInput {
  companyName?: string;
  companyCvr?: string;
  companyEmail?: string;
  companyPhone?: string;
  personFirstName?: string;
  personLastName?: string;
  personEmail?: string;
  personPhone?: string;
  personTitle?: string;
  leadTitle?: string;
  leadSource?: string;
  leadStatus?: string;
  leadNotes?: string;
  dealTitle?: string;
  dealValue?: number;
  dealFlowId?: string;
  dealStageId?: string;
  customFields?: Record<string, unknown>;
  tags?: string[];
}

export type InboundRef = InboundRefView;
export type InboundAction = InboundRef['action'];
/** The answer of an inbound submission (the view in inbound.schemas.ts). */
export type InboundResult = InboundResultView;

// Inbound payloads carry no images; a resolver that is never reached keeps the services' contract.
const noImages: ImageResolver = async () => {
  throw validation('inbound payloads cannot set images');
};
const write = { preview: false, images: noImages };

// Domain services name their own fields ("flowId: no flow …"); inbound callers sent dealFlowId.
const COMPANY_NAMES = {
  name: 'companyName',
  cvr: 'companyCvr',
  email: 'companyEmail',
  phone: 'companyPhone',
  customFields: 'company.customFields',
};
const PERSON_NAMES = {
  firstName: 'personFirstName',
  lastName: 'personLastName',
  title: 'personTitle',
  emails: 'personEmail',
  phones: 'personPhone',
  customFields: 'person.customFields',
};
const LEAD_NAMES = {
  title: 'leadTitle',
  status: 'leadStatus',
  source: 'leadSource',
  notes: 'leadNotes',
  email: 'personEmail',
  phone: 'personPhone',
};
const DEAL_NAMES = {
  title: 'dealTitle',
  value: 'dealValue',
  flowId: 'dealFlowId',
  stageId: 'dealStageId',
  customFields: 'deal.customFields',
  tags: 'tags',
};

function renamePath(path: string, names: Record<string, string>): string {
  const [head, ...rest] = path.split('.');
  const renamed = names[head!];
  return renamed ? [renamed, ...rest].join('.') : path;
}

async function step<T>(names: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof DomainError) || err.code !== 'validation') throw err;
    const match = /^([\w.]+): ([\s\S]*)$/.exec(err.message);
    const message = match ? `${renamePath(match[1]!, names)}: ${match[2]}` : err.message;
    const details = Array.isArray(err.details)
      ? err.details.map((d: { path?: string }) =>
          typeof d?.path === 'string' ? { ...d, path: renamePath(d.path, names) } : d,
        )
      : err.details;
    throw new DomainError('validation', message, details);
  }
}

/** Only fields that are empty on the record: an anonymous form never overwrites what users typed. */
function fillEmpty<T extends object>(
  record: T,
  values: Partial<Record<keyof T & string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '' && (record as Record<string, unknown>)[key] == null)
      out[key] = value;
  }
  return out;
}

async function resolveCompany(
  ctx: Ctx,
  input: InboundInput,
): Promise<{ company: Company | null; ref: InboundRef | null }> {
  const match = await matchCompany(ctx, {
    cvr: input.companyCvr,
    name: input.companyName,
    emails: [input.companyEmail, input.personEmail],
  });
  if (match) {
    const patch = fillEmpty(match.company, {
      cvr: input.companyCvr,
      email: input.companyEmail,
      phone: input.companyPhone,
    }) as CompanyInput;
    if (!Object.keys(patch).length)
      return { company: match.company, ref: { _id: match.company._id, action: 'matched', matchedBy: match.rule } };
    await step(COMPANY_NAMES, () => updateCompany(ctx, match.company._id, patch, write));
    return { company: match.company, ref: { _id: match.company._id, action: 'updated', matchedBy: match.rule } };
  }
  // Without a name there is nothing to create a company from; the lead keeps the contact data.
  if (!input.companyName) return { company: null, ref: null };
  const data = {
    name: input.companyName,
    cvr: input.companyCvr ?? null,
    email: input.companyEmail ?? null,
    phone: input.companyPhone ?? null,
  };
  const created = (await step(COMPANY_NAMES, () => createCompany(ctx, data, write))) as { _id: string; name: string };
  return { company: { _id: created._id, name: created.name } as Company, ref: { _id: created._id, action: 'created' } };
}

const hasPerson = (i: InboundInput): boolean =>
  Boolean(i.personFirstName || i.personLastName || i.personEmail || i.personPhone);

/** A person needs a first name: the last name moves up, else the e-mail's local part or the phone stands in. */
function personNames(i: InboundInput): { firstName: string; lastName: string | null } {
  if (i.personFirstName) return { firstName: i.personFirstName, lastName: i.personLastName ?? null };
  if (i.personLastName) return { firstName: i.personLastName, lastName: null };
  return { firstName: (i.personEmail?.split('@')[0] || i.personPhone)!, lastName: null };
}

async function resolvePerson(
  ctx: Ctx,
  input: InboundInput,
  companyId: string | undefined,
): Promise<{ person: Person | null; ref: InboundRef | null }> {
  if (!hasPerson(input)) return { person: null, ref: null };
  const found = input.personEmail ? await matchPersonByEmail(ctx, input.personEmail) : null;
  if (!found) {
    const data: PersonInput & { firstName: string } = {
      ...personNames(input),
      title: input.personTitle ?? null,
      emails: input.personEmail ? [{ email: input.personEmail, label: null }] : [],
      phones: input.personPhone ? [{ phone: input.personPhone, label: null }] : [],
      companyId: companyId ?? null,
    };
    const created = (await step(PERSON_NAMES, () => createPerson(ctx, data, write))) as {
      _id: string;
      firstName: string;
      lastName: string | null;
    };
    return {
      person: { _id: created._id, firstName: created.firstName, lastName: created.lastName } as Person,
      ref: { _id: created._id, action: 'created' },
    };
  }
  const patch = fillEmpty(found, {
    lastName: input.personLastName,
    title: input.personTitle,
    companyId,
  }) as PersonInput;
  if (
    input.personPhone &&
    !found.phones.some((p) => p.phone.replace(/\D/g, '') === input.personPhone!.replace(/\D/g, ''))
  ) {
    patch.phones = [...found.phones, { phone: input.personPhone, label: null }];
  }
  let changed = false;
  if (Object.keys(patch).length) {
    await step(PERSON_NAMES, () => updatePerson(ctx, found._id, patch, write));
    changed = true;
  }
  // Already at another company: link as well, the primary company stays.
  if (companyId && found.companyId !== companyId)
    changed = (await linkPerson(ctx, companyId, found._id)).linked || changed;
  return { person: found, ref: { _id: found._id, action: changed ? 'updated' : 'matched', matchedBy: 'email' } };
}

const fullName = (p: Person | null): string | undefined =>
  p ? [p.firstName, p.lastName].filter(Boolean).join(' ') : undefined;

/** "Inbound: <person, company, e-mail or phone>" when the payload names no lead title. */
export function generatedLeadTitle(
  input: InboundInput,
  subject: { person: Person | null; company: Company | null },
  prefix = 'Inbound',
): string {
  const who =
    fullName(subject.person) ||
    subject.company?.name ||
    input.companyName ||
    input.personEmail ||
    input.companyEmail ||
    input.personPhone ||
    input.companyPhone;
  return who ? `${prefix}: ${who}` : `${prefix} submission`;
}

/**
 * Creates or finds-and-updates company and person, then creates the lead (always) and the deal
 * (when any deal field is given), all in one transaction: any failure writes nothing.
 */
export async function processInbound(
  ctx: Ctx,
  input: InboundInput,
  opts: { defaultSource: string; titlePrefix?: string },
): Promise<InboundResult> {
  return inTransaction(ctx, async () => {
    const { company, ref: companyRef } = await resolveCompany(ctx, input);
    const { person, ref: personRef } = await resolvePerson(ctx, input, company?._id);
    const lead = (await step(LEAD_NAMES, () =>
      createLead(
        ctx,
        {
          title: input.leadTitle ?? generatedLeadTitle(input, { person, company }, opts.titlePrefix),
          source: input.leadSource ?? opts.defaultSource,
          ...(input.leadStatus ? { status: input.leadStatus } : {}),
          notes: input.leadNotes ?? null,
          email: input.personEmail ?? input.companyEmail ?? null,
          phone: input.personPhone ?? input.companyPhone ?? null,
          value: input.dealValue ?? null,
          companyRef: company?._id ?? null,
          personRef: person?._id ?? null,
          customFields: input.customFields ?? {},
          tags: input.tags ?? [],
        },
        { preview: false },
      ),
    )) as { _id: string; title: string };
    let deal: InboundRef | null = null;
    if (input.dealTitle !== undefined || input.dealValue !== undefined || input.dealFlowId || input.dealStageId) {
      const created = (await step(DEAL_NAMES, () =>
        createDeal(
          ctx,
          {
            title: input.dealTitle ?? lead.title,
            value: input.dealValue ?? null,
            flowId: input.dealFlowId,
            stageId: input.dealStageId,
            company: company?._id ?? null,
            personRef: person?._id ?? null,
            leadRef: lead._id,
            tags: input.tags ?? [],
          },
          { preview: false },
        ),
      )) as { _id: string };
      deal = { _id: created._id, action: 'created' };
    }
    return { company: companyRef, person: personRef, lead: { _id: lead._id, action: 'created' }, deal };
  });
}
