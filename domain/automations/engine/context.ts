/**
 * Loads the placeholder namespaces of a trigger (lead, person/contact, company, deal, owner, call,
 * event, …) from Postgres into the execution context. Values are plain JSON (dates as ISO text).
 */
import { wrap, type EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Call } from '../../calls/call.entity';
import { CalendarEvent } from '../../calendar/calendar-event.entity';
import { Company } from '../../companies/company.entity';
import { Deal } from '../../deals/deal.entity';
import { FlowStage } from '../../deals/flow.entity';
import { Lead } from '../../leads/lead.entity';
import { SmsMessage } from '../../messaging/sms-message.entity';
import { Person } from '../../people/person.entity';
import { User } from '../../workspaces/user.entity';
import { loadRecordForAutomation } from '../../custom-objects/automation-view';
import { normalizeEntity } from '../triggers';
import type { Context } from './types';

const INTERNAL = new Set(['workspaceId', 'scoreBreakdown', 'conversation', 'transcriptText']);

/** An entity as JSON for the context: internal columns dropped, dates as ISO strings. */
export function plainRecord(entity: object): Record<string, unknown> {
  const obj = wrap(entity).toObject() as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!INTERNAL.has(k)) out[k] = v instanceof Date ? v.toISOString() : v;
  return JSON.parse(JSON.stringify(out)) as Record<string, unknown>;
}

const fullName = (first?: string | null, last?: string | null): string => [first, last].filter(Boolean).join(' ');

/** The spec's contact namespace (firstName, lastName, fullName, email, phone, mobile, title) over a person. */
export function contactView(p: Person): Record<string, unknown> {
  const mobile = p.phones.find((x) => /mobil/i.test(x.label ?? ''))?.phone ?? null;
  return {
    ...plainRecord(p),
    fullName: fullName(p.firstName, p.lastName),
    email: p.emails[0]?.email ?? null,
    phone: p.phones[0]?.phone ?? null,
    mobile,
  };
}

export function ownerView(u: User): Record<string, unknown> {
  return { _id: u._id, firstName: u.firstName, lastName: u.lastName ?? null, fullName: fullName(u.firstName, u.lastName), email: u.email, phone: u.phone ?? null };
}

async function byId<T extends object>(em: EntityManager, entity: EntityName<T>, id: unknown): Promise<T | null> {
  if (typeof id !== 'string' || !/^[0-9a-f]{24}$/.test(id)) return null;
  return em.findOne(entity, { _id: id } as never);
}

/** Fills person + contact, company and owner when the record links them (and they are not set yet). */
async function addLinks(em: EntityManager, ctx: Context, links: { personId?: unknown; companyId?: unknown; ownerId?: unknown; leadId?: unknown; dealId?: unknown }): Promise<void> {
  if (links.leadId && !ctx.lead) {
    const lead = await byId(em, Lead, links.leadId);
    if (lead) ctx.lead = plainRecord(lead);
  }
  if (links.dealId && !ctx.deal) {
    const deal = await byId(em, Deal, links.dealId);
    if (deal) ctx.deal = await dealView(em, deal);
  }
  if (links.personId && !ctx.person) {
    const person = await byId(em, Person, links.personId);
    if (person) {
      ctx.person = contactView(person);
      ctx.contact = ctx.person;
      links.companyId ??= person.companyId;
    }
  }
  if (links.companyId && !ctx.company) {
    const company = await byId(em, Company, links.companyId);
    if (company) ctx.company = plainRecord(company);
  }
  if (links.ownerId && !ctx.owner) {
    const owner = await byId(em, User, links.ownerId);
    if (owner) ctx.owner = ownerView(owner);
  }
}

async function dealView(em: EntityManager, deal: Deal): Promise<Record<string, unknown>> {
  const stage = deal.stageId ? await byId(em, FlowStage, deal.stageId) : null;
  return { ...plainRecord(deal), stage: stage?.title ?? null, stageType: stage?.type ?? null };
}

/**
 * The namespaces of one record and what it links to: a lead brings its person (also as
 * `contact`), company and owner; a deal its stage title, company, person and owner; and so on.
 * Unknown types or ids yield an empty context (the execution still runs, placeholders render "").
 */
export async function loadEntityContext(em: EntityManager, entityType: string | null | undefined, entityId: string | null | undefined): Promise<Context> {
  const ctx: Context = {};
  const kind = normalizeEntity(entityType);
  if (!entityId) return ctx;
  const type = kind ?? String(entityType).toLowerCase();
  switch (type) {
    case 'lead': {
      const lead = await byId(em, Lead, entityId);
      if (!lead) return ctx;
      ctx.lead = plainRecord(lead);
      await addLinks(em, ctx, { personId: lead.personRef, companyId: lead.companyRef, ownerId: lead.ownerId });
      return ctx;
    }
    case 'person': {
      const person = await byId(em, Person, entityId);
      if (!person) return ctx;
      await addLinks(em, ctx, { personId: person._id, companyId: person.companyId, ownerId: person.ownerId });
      return ctx;
    }
    case 'company': {
      const company = await byId(em, Company, entityId);
      if (!company) return ctx;
      ctx.company = plainRecord(company);
      await addLinks(em, ctx, { ownerId: company.ownerId });
      return ctx;
    }
    case 'deal': {
      const deal = await byId(em, Deal, entityId);
      if (!deal) return ctx;
      ctx.deal = await dealView(em, deal);
      await addLinks(em, ctx, { personId: deal.personRef, companyId: deal.company, ownerId: deal.ownerId, leadId: deal.leadRef });
      return ctx;
    }
    case 'sms': {
      // sms_received/sms_replied: the message plus the contact it was linked to, so a reply can use contact.*.
      const sms = await byId(em, SmsMessage, entityId);
      if (!sms) return ctx;
      ctx.sms = { _id: sms._id, direction: sms.direction, from: sms.from, to: sms.to, body: sms.body };
      await addLinks(em, ctx, { leadId: sms.leadId, dealId: sms.dealId, personId: sms.personId, companyId: sms.companyId });
      return ctx;
    }
    case 'call':
    case 'event': {
      // Both link to every kind of record with the same column names.
      const row = type === 'call' ? await byId(em, Call, entityId) : await byId(em, CalendarEvent, entityId);
      if (!row) return ctx;
      ctx[type] = plainRecord(row);
      await addLinks(em, ctx, { leadId: row.leadId, dealId: row.dealId, personId: row.personId, companyId: row.companyId, ownerId: row.ownerId });
      return ctx;
    }
    case 'custom_object': {
      // custom_object_created/updated and lookups on CustomObjectRecord: the record (slugs flattened) and the CRM records it references.
      const loaded = await loadRecordForAutomation(em, entityId);
      if (!loaded) return ctx;
      ctx.custom_record = loaded.view;
      await addLinks(em, ctx, { personId: loaded.links.person, companyId: loaded.links.company, dealId: loaded.links.deal, leadId: loaded.links.lead, ownerId: loaded.ownerId });
      return ctx;
    }
    default:
      return ctx;
  }
}

/** Context for an outbox event: the record's namespaces, payload namespaces we do not store, `system`. */
export async function loadTriggerContext(
  em: EntityManager,
  event: { workspaceId: string; type: string; entityType: string; entityId: string; payload: Record<string, unknown>; occurredAt?: Date },
  namespaces: readonly string[],
): Promise<Context> {
  // Tag events name the tagged record in the payload (entityType/entityId) as well.
  let entityType = typeof event.payload.entityType === 'string' && (event.type === 'tag_added' || event.type === 'tag_removed') ? event.payload.entityType : event.entityType;
  let entityId = event.entityId;
  // Sequence enrollment events are about the enrolled record (Lead, People, Deal, Company).
  const enrollment = event.payload.enrollment as { entityType?: unknown; entityId?: unknown } | undefined;
  if (event.entityType === 'sequence_enrollment' && typeof enrollment?.entityType === 'string' && typeof enrollment.entityId === 'string') {
    entityType = enrollment.entityType;
    entityId = enrollment.entityId;
  }
  const ctx = await loadEntityContext(em, entityType, entityId);
  // Namespaces without a table here yet (offer, booking, ticket, …) come from the event payload.
  for (const ns of namespaces) {
    const fromPayload = event.payload[ns];
    if (ctx[ns] === undefined && fromPayload && typeof fromPayload === 'object' && !Array.isArray(fromPayload)) ctx[ns] = fromPayload;
  }
  if (event.type === 'tag_added' || event.type === 'tag_removed') ctx.tag = event.payload.tag ?? null;
  if (event.payload.changes && typeof event.payload.changes === 'object') ctx.changes = event.payload.changes;
  ctx.system = systemNamespace(event.workspaceId, normalizeEntity(entityType) ?? event.entityType, entityId, event.occurredAt ?? new Date());
  return ctx;
}

export function systemNamespace(workspaceId: string, entityType: string | null, entityId: string | null, at: Date): Record<string, unknown> {
  return { triggeredAt: at.toISOString(), entityId, entityType, workspaceId };
}
