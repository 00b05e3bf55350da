import { TRIGGER_TYPES } from '../definition.schemas';
import {
  TRIGGER_NAMESPACES,
  candidateTriggerTypes,
  changeOf,
  matchesTrigger,
  normalizeEntity,
  type CrmEvent,
} from '../triggers';

const ev = (type: string, entityType: string, payload: Record<string, unknown> = {}): CrmEvent => ({
  type,
  entityType,
  entityId: 'x1',
  payload,
});
const lead = { _id: 'l1', title: 'L' };
const deal = { _id: 'd1', stageId: 's2' };

const E = {
  leadCreated: ev('lead_created', 'lead', { lead }),
  leadUpdated: ev('lead_updated', 'lead', { lead, changes: { status: { from: 'new', to: 'won' } } }),
  leadUpdatedNothing: ev('lead_updated', 'lead', { lead, changes: {} }),
  personCreated: ev('person_created', 'person', { person: { _id: 'p1' } }),
  personUpdated: ev('person_updated', 'person', {
    person: { _id: 'p1' },
    changes: { email: { from: null, to: 'a@b.dk' } },
  }),
  companyCreated: ev('company_created', 'company', { company: { _id: 'c1' } }),
  companyUpdated: ev('company_updated', 'company', {
    company: { _id: 'c1' },
    changes: { city: { from: 'A', to: 'B' } },
  }),
  companyDeleted: ev('company_deleted', 'company', { company: { _id: 'c1' } }),
  dealCreated: ev('deal_created', 'deal', { deal }),
  dealWon: ev('deal_won', 'deal', { deal }),
  dealStage: ev('deal_stage_changed', 'deal', { deal, fromStageId: 's1', toStageId: 's2', flowId: 'f1' }),
  ticketStage: ev('support_ticket_stage_changed', 'support_ticket', { ticket: { _id: 't1' } }),
  ticketCreated: ev('support_ticket_created', 'support_ticket', { ticket: { _id: 't1' } }),
  customCreated: ev('custom_object_created', 'custom_object', { custom_record: { _id: 'r1', customObjectId: 'obj1' } }),
  tagAddedPerson: ev('tag_added', 'person', { entityType: 'person', entityId: 'p1', tag: 'VIP' }),
  tagAddedCompany: ev('tag_added', 'company', { entityType: 'company', entityId: 'c1', tag: 'partner' }),
  tagAddedDeal: ev('tag_added', 'deal', { entityType: 'deal', entityId: 'd1', tag: 'vip' }),
  tagRemovedLead: ev('tag_removed', 'lead', { entityType: 'lead', entityId: 'l1', tag: 'vip' }),
  bookingCreated: ev('booking_created', 'booking', { booking: { _id: 'b1', bookingConfigId: 'cfg1' } }),
  calculator: ev('calculator_submission', 'calculator', { calculator: { templateId: 'calc1' } }),
  smsStop: ev('sms_received', 'sms', { sms: { body: 'Please STOP, thanks', from: '+45' } }),
  smsStopper: ev('sms_received', 'sms', { sms: { body: 'unstoppable' } }),
  agentChange: ev('agent_field_change', 'agent', { agent: { _id: 'ag1' } }),
};

type Row = [string, string, Record<string, unknown> | undefined, CrmEvent, boolean];
const rows: Row[] = [
  ['direct type', 'lead_created', undefined, E.leadCreated, true],
  ['direct type, other event', 'lead_created', undefined, E.leadUpdated, false],
  ['deal_won', 'deal_won', undefined, E.dealWon, true],
  ['deal_won vs stage change', 'deal_won', undefined, E.dealStage, false],
  ['company_updated', 'company_updated', undefined, E.companyUpdated, true],
  ['stage any (no config)', 'deal_stage_changed', undefined, E.dealStage, true],
  ['stage any (empty)', 'deal_stage_changed', { stageId: '' }, E.dealStage, true],
  ['stage matching toStageId', 'deal_stage_changed', { stageId: 's2' }, E.dealStage, true],
  ['stage not matching (fromStageId)', 'deal_stage_changed', { stageId: 's1' }, E.dealStage, false],
  ['tag all, person', 'tag_added', { entityType: 'all', tagId: 'any' }, E.tagAddedPerson, true],
  ['tag default config', 'tag_added', undefined, E.tagAddedCompany, true],
  ['tag all excludes deals', 'tag_added', { entityType: 'all' }, E.tagAddedDeal, false],
  ['tag People', 'tag_added', { entityType: 'People' }, E.tagAddedPerson, true],
  ['tag Company vs person', 'tag_added', { entityType: 'Company' }, E.tagAddedPerson, false],
  ['tag value case-insensitive', 'tag_added', { entityType: 'People', tagId: 'vip' }, E.tagAddedPerson, true],
  ['tag value other', 'tag_added', { tagId: 'gold' }, E.tagAddedPerson, false],
  ['tag_removed Lead', 'tag_removed', { entityType: 'Lead', tagId: 'vip' }, E.tagRemovedLead, true],
  ['tag_removed vs tag_added', 'tag_removed', undefined, E.tagAddedPerson, false],
  ['record_created all', 'record_created', undefined, E.personCreated, true],
  ['record_created all (explicit)', 'record_created', { entityTypes: ['all'] }, E.customCreated, true],
  ['record_created listed', 'record_created', { entityTypes: ['lead', 'company'] }, E.companyCreated, true],
  ['record_created not listed', 'record_created', { entityTypes: ['lead'] }, E.companyCreated, false],
  ['record_created support ticket', 'record_created', { entityTypes: ['support_ticket'] }, E.ticketCreated, true],
  ['record_created vs update', 'record_created', undefined, E.leadUpdated, false],
  ['record_created vs delete', 'record_created', undefined, E.companyDeleted, false],
  ['record_changed field change', 'record_changed', undefined, E.leadUpdated, true],
  ['record_changed empty change', 'record_changed', undefined, E.leadUpdatedNothing, false],
  ['record_changed entity listed', 'record_changed', { entityTypes: ['person'] }, E.personUpdated, true],
  ['record_changed entity not listed', 'record_changed', { entityTypes: ['deal'] }, E.personUpdated, false],
  [
    'record_changed stage change',
    'record_changed',
    { entityTypes: ['deal'], changeTypes: ['stage_changed'] },
    E.dealStage,
    true,
  ],
  ['record_changed ticket stage', 'record_changed', { entityTypes: ['support_ticket'] }, E.ticketStage, true],
  ['record_changed stage not wanted', 'record_changed', { changeTypes: ['field_changed'] }, E.dealStage, false],
  ['record_changed tag', 'record_changed', { changeTypes: ['tag_added'], tagId: 'vip' }, E.tagAddedPerson, true],
  [
    'record_changed tag other value',
    'record_changed',
    { changeTypes: ['tag_added'], tagId: 'gold' },
    E.tagAddedPerson,
    false,
  ],
  ['record_changed tag removed not wanted', 'record_changed', { changeTypes: ['tag_added'] }, E.tagRemovedLead, false],
  ['record_changed tagId ignored for fields', 'record_changed', { tagId: 'gold' }, E.companyUpdated, true],
  ['record_changed vs create', 'record_changed', undefined, E.leadCreated, false],
  ['record_changed vs deal_won', 'record_changed', undefined, E.dealWon, false],
  ['booking config any', 'booking_created', undefined, E.bookingCreated, true],
  ['booking config match', 'booking_created', { bookingConfigId: 'cfg1' }, E.bookingCreated, true],
  ['booking config other', 'booking_created', { bookingConfigId: 'cfg2' }, E.bookingCreated, false],
  ['calculator template match', 'calculator_submission', { calculatorTemplateId: 'calc1' }, E.calculator, true],
  ['calculator template other', 'calculator_submission', { calculatorTemplateId: 'calc9' }, E.calculator, false],
  ['custom object match', 'custom_object_created', { customObjectId: 'obj1' }, E.customCreated, true],
  ['custom object other', 'custom_object_created', { customObjectId: 'obj2' }, E.customCreated, false],
  ['sms no keyword', 'sms_received', undefined, E.smsStop, true],
  ['sms keyword whole word', 'sms_received', { keyword: 'stop' }, E.smsStop, true],
  ['sms keyword inside a word', 'sms_received', { keyword: 'stop' }, E.smsStopper, false],
  ['sms keyword phrase', 'sms_received', { keyword: 'please stop' }, E.smsStop, true],
  ['agent match', 'agent_field_change', { agentId: 'ag1' }, E.agentChange, true],
  ['agent other', 'agent_field_change', { agentId: 'ag2' }, E.agentChange, false],
  ['scheduled never matches events', 'scheduled', { frequency: 'daily', time: '09:00' }, E.leadCreated, false],
  ['webhook never matches events', 'webhook', undefined, E.leadCreated, false],
];

describe('matchesTrigger', () => {
  it.each(rows)('%s: %s %j', (_name, triggerType, config, event, expected) => {
    expect(matchesTrigger({ triggerType, config }, event)).toBe(expected);
  });

  it('tolerates a null config and a malformed payload', () => {
    expect(
      matchesTrigger(
        { triggerType: 'deal_stage_changed', config: null },
        { ...E.dealStage, payload: null as unknown as Record<string, unknown> },
      ),
    ).toBe(true);
  });
});

describe('helpers', () => {
  it.each([
    ['People', 'person'],
    ['SupportTicket', 'support_ticket'],
    ['CustomObjectRecord', 'custom_object'],
    ['Lead', 'lead'],
    ['lead', 'lead'],
    ['invoice', null],
    [3, null],
  ])('normalizeEntity(%j) → %j', (v, expected) => expect(normalizeEntity(v)).toBe(expected));

  it.each([
    [E.leadUpdated, { entity: 'lead', change: 'field_changed' }],
    [E.dealStage, { entity: 'deal', change: 'stage_changed' }],
    [E.tagAddedCompany, { entity: 'company', change: 'tag_added' }],
    [E.leadCreated, null],
    [E.dealWon, null],
  ])('changeOf(%j)', (event, expected) => expect(changeOf(event)).toEqual(expected));

  it.each([
    ['lead_created', 'lead', ['lead_created', 'record_created']],
    ['company_updated', 'company', ['company_updated', 'record_changed']],
    ['deal_stage_changed', 'deal', ['deal_stage_changed', 'record_changed']],
    ['tag_added', 'person', ['tag_added', 'record_changed']],
    ['deal_won', 'deal', ['deal_won']],
    ['company_deleted', 'company', ['company_deleted']],
  ])('candidateTriggerTypes(%s) → %j', (type, entity, expected) => {
    expect(candidateTriggerTypes(type, entity)).toEqual(expected);
  });

  it('has the namespaces of every trigger type', () => {
    for (const t of TRIGGER_TYPES) expect(Array.isArray(TRIGGER_NAMESPACES[t])).toBe(true);
    expect(TRIGGER_NAMESPACES.deal_stage_changed).toEqual(['deal', 'company', 'person', 'owner']);
    expect(TRIGGER_NAMESPACES.webhook).toEqual(['webhookData']);
  });
});
