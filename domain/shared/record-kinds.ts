import type { EntityName } from '@mikro-orm/core';
import type { Ctx } from '../context';
import { Company } from '../companies/company.entity';
import { serializeCompany } from '../companies/companies.service';
import { COMPANY_SUMMARY_FIELDS } from '../companies/companies.schemas';
import { Deal } from '../deals/deal.entity';
import { serializeDeal } from '../deals/deals.service';
import { DEAL_SUMMARY_FIELDS } from '../deals/deals.schemas';
import { Lead } from '../leads/lead.entity';
import { serializeLead } from '../leads/leads.service';
import { LEAD_SUMMARY_FIELDS } from '../leads/leads.schemas';
import { activeScoringRules, contactFacts } from '../leads/lead-scoring.service';
import { scoreLead } from '../leads/scoring';
import { Person } from '../people/person.entity';
import { serializePerson } from '../people/people.service';
import { PERSON_SUMMARY_FIELDS } from '../people/people.schemas';
import type { TimelineLink } from '../timeline/timeline.service';
import { toPlain } from './listing';
import type { RecordType } from './record-types';

export { RECORD_TYPES, type RecordType } from './record-types';

type AnyRecord = { _id: string; tags: string[]; customFields: unknown; updatedAt: Date } & Record<string, unknown>;

export interface RecordKind {
  type: RecordType;
  /** The entity schema; its `meta.className` names the table for the SQL-written queries. */
  entity: EntityName<AnyRecord> & { meta: { className: string } };
  /** Companies/people store custom fields as [{ name, value }]; leads/deals as a key → value map. */
  customFieldStorage: 'pairs' | 'map';
  serialize: (record: AnyRecord) => Record<string, unknown>;
  summary: (record: AnyRecord) => Record<string, unknown>;
  /** Activity-feed link of the record, for system rows. */
  link: (id: string) => TimelineLink;
  /** Human-readable name for feed rows. */
  displayName: (record: AnyRecord) => string;
}

const pick = (keys: readonly string[]) => (record: AnyRecord) => toPlain(record, ['_id', ...keys]);

export const RECORD_KINDS: Record<RecordType, RecordKind> = {
  company: {
    type: 'company', entity: Company as unknown as RecordKind['entity'], customFieldStorage: 'pairs',
    serialize: (r) => serializeCompany(r as never), summary: pick(COMPANY_SUMMARY_FIELDS),
    link: (id) => ({ companyId: id, entityType: 'company', entityId: id }),
    displayName: (r) => String(r.name),
  },
  person: {
    type: 'person', entity: Person as unknown as RecordKind['entity'], customFieldStorage: 'pairs',
    serialize: (r) => serializePerson(r as never), summary: pick(PERSON_SUMMARY_FIELDS),
    link: (id) => ({ personId: id, entityType: 'person', entityId: id }),
    displayName: (r) => [r.firstName, r.lastName].filter(Boolean).join(' '),
  },
  lead: {
    type: 'lead', entity: Lead as unknown as RecordKind['entity'], customFieldStorage: 'map',
    serialize: (r) => serializeLead(r as never), summary: pick([...LEAD_SUMMARY_FIELDS, 'tags']),
    link: (id) => ({ leadId: id, entityType: 'lead', entityId: id }),
    displayName: (r) => String(r.title),
  },
  deal: {
    type: 'deal', entity: Deal as unknown as RecordKind['entity'], customFieldStorage: 'map',
    serialize: (r) => serializeDeal(r as never), summary: pick([...DEAL_SUMMARY_FIELDS, 'tags']),
    link: (id) => ({ dealId: id, entityType: 'deal', entityId: id }),
    displayName: (r) => String(r.title),
  },
};

/** Table and column names of a record type, for the few queries written in SQL. */
export function tableOf(ctx: Ctx, kind: RecordKind): { table: string; column: (prop: string) => string } {
  const meta = ctx.em.getMetadata().get(kind.entity.meta.className);
  return { table: meta.tableName, column: (prop) => meta.properties[prop]!.fieldNames[0]! };
}

/** Loads records of one type by id (workspace-filtered); `missing` lists ids that are not there. */
export async function loadRecords(ctx: Ctx, kind: RecordKind, ids: readonly string[]): Promise<{ records: AnyRecord[]; missing: string[] }> {
  const records = (await ctx.em.find(kind.entity, { _id: { $in: [...ids] } } as never)) as AnyRecord[];
  const found = new Set(records.map((r) => r._id));
  return { records, missing: ids.filter((id) => !found.has(id)) };
}

/**
 * Lead scores depend on tags and custom fields, so a write that changes them outside the lead
 * service (bulk tags) rescores the leads in the same flush. Returns the score changes per lead.
 */
export async function rescoreChangedLeads(ctx: Ctx, leads: Lead[]): Promise<Map<string, { from: number; to: number }>> {
  const changed = new Map<string, { from: number; to: number }>();
  if (!leads.length) return changed;
  const rules = await activeScoringRules(ctx.em);
  const personIds = [...new Set(leads.map((l) => l.personRef).filter((id): id is string => Boolean(id)))];
  const people = new Map((personIds.length ? await ctx.em.find(Person, { _id: { $in: personIds } }) : []).map((p) => [p._id, p]));
  for (const lead of leads) {
    const result = scoreLead(rules, { lead, contact: contactFacts(lead.personRef ? people.get(lead.personRef) : null) });
    if (result.score !== lead.score) changed.set(lead._id, { from: lead.score, to: result.score });
    lead.score = result.score;
    lead.scoreBreakdown = result.breakdown;
  }
  return changed;
}

export type { AnyRecord };
