/**
 * Loads the placeholder namespaces of a trigger (lead, person/contact, company, deal, owner, call,
 * event, …) from Postgres into the execution context. Values are plain JSON (dates as ISO text).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Company } from '../../companies';
import { User } from '../../workspaces';
import { Lead } from '../../leads';
import { Deal, dealContext } from '../../deals';
import { Person } from '../../people';
import { resources } from '../../../platform/resources';
import type { AutomationSupport, ContextLinks } from '../../../platform/shared/resource';
import { normalizeEntity } from '../triggers';
import { byId, contactView, ownerView, plainRecord } from '../../../platform/shared/record-view';
import type { Context } from './types.pure';

/** Fills person + contact, company and owner when the record links them (and they are not set yet). */
async function addLinks(em: EntityManager, ctx: Context, links: ContextLinks): Promise<void> {
  if (links.leadId && !ctx.lead) {
    const lead = await byId(em, Lead, links.leadId);
    if (lead) ctx.lead = plainRecord(lead);
  }
  if (links.dealId && !ctx.deal) {
    const deal = await byId(em, Deal, links.dealId);
    if (deal) ctx.deal = await dealContext(em, deal);
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

/**
 * The namespaces of one record and what it links to: a lead brings its person (also as
 * `contact`), company and owner; a deal its stage title, company, person and owner; and so on.
 * Unknown types or ids yield an empty context (the execution still runs, placeholders render "").
 */
export async function loadEntityContext(
  em: EntityManager,
  entityType: string | null | undefined,
  entityId: string | null | undefined,
): Promise<Context> {
  const ctx: Context = {};
  const kind = normalizeEntity(entityType);
  if (!entityId) return ctx;
  const type = kind ?? String(entityType).toLowerCase();
  const load = contextLoaders().get(type);
  if (!load) return ctx;
  const loaded = await load(em, entityId);
  if (!loaded) return ctx;
  Object.assign(ctx, loaded.namespaces);
  await addLinks(em, ctx, loaded.links);
  return ctx;
}

type ContextLoader = NonNullable<AutomationSupport['load']>;
let loaders: Map<string, ContextLoader> | null = null;

/**
 * The manifests' context loaders by the kind's normalised automation entity name (lead, person, call, custom_object,
 * …).
 */
export function contextLoaders(): ReadonlyMap<string, ContextLoader> {
  loaders ??= new Map(
    resources().flatMap((r) => {
      const a = r.automation;
      return a?.load ? [[normalizeEntity(a.entityType) ?? a.entityType, a.load.bind(a)] as const] : [];
    }),
  );
  return loaders;
}

/** Context for an outbox event: the record's namespaces, payload namespaces we do not store, `system`. */
export async function loadTriggerContext(
  em: EntityManager,
  event: {
    workspaceId: string;
    type: string;
    entityType: string;
    entityId: string;
    payload: Record<string, unknown>;
    occurredAt?: Date;
  },
  namespaces: readonly string[],
): Promise<Context> {
  // Tag events name the tagged record in the payload (entityType/entityId) as well.
  let entityType =
    typeof event.payload.entityType === 'string' && (event.type === 'tag_added' || event.type === 'tag_removed')
      ? event.payload.entityType
      : event.entityType;
  let entityId = event.entityId;
  // Sequence enrollment events are about the enrolled record (Lead, People, Deal, Company).
  const enrollment = event.payload.enrollment as { entityType?: unknown; entityId?: unknown } | undefined;
  if (
    event.entityType === 'sequence_enrollment' &&
    typeof enrollment?.entityType === 'string' &&
    typeof enrollment.entityId === 'string'
  ) {
    entityType = enrollment.entityType;
    entityId = enrollment.entityId;
  }
  const ctx = await loadEntityContext(em, entityType, entityId);
  // Namespaces without a table here yet (offer, booking, ticket, …) come from the event payload.
  for (const ns of namespaces) {
    const fromPayload = event.payload[ns];
    if (ctx[ns] === undefined && fromPayload && typeof fromPayload === 'object' && !Array.isArray(fromPayload))
      ctx[ns] = fromPayload;
  }
  if (event.type === 'tag_added' || event.type === 'tag_removed') ctx.tag = event.payload.tag ?? null;
  if (event.payload.changes && typeof event.payload.changes === 'object') ctx.changes = event.payload.changes;
  ctx.system = systemNamespace(
    event.workspaceId,
    normalizeEntity(entityType) ?? event.entityType,
    entityId,
    event.occurredAt ?? new Date(),
  );
  return ctx;
}

export function systemNamespace(
  workspaceId: string,
  entityType: string | null,
  entityId: string | null,
  at: Date,
): Record<string, unknown> {
  return { triggeredAt: at.toISOString(), entityId, entityType, workspaceId };
}
