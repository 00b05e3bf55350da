/**
 * The kinds of records a request field or a graph node may name, declared once: the entity that
 * holds them (by MikroORM entity name, so this file imports no module) and how a 400 names them.
 * Kind names are the resource kinds of route `resources` and of the test factories.
 */
export interface RefKindSpec {
  /** MikroORM entity name (every one is tenant-owned: the workspace filter scopes the lookup). */
  entity: string;
  /** How an error names one record: "no <label> with id …". */
  label: string;
  /** Also accepted in place of the id (custom objects are addressed by id or slug). */
  alternateKey?: string;
}

export const REF_KINDS = {
  company: { entity: 'Company', label: 'company' },
  person: { entity: 'Person', label: 'person' },
  lead: { entity: 'Lead', label: 'lead' },
  deal: { entity: 'Deal', label: 'deal' },
  user: { entity: 'User', label: 'user' },
  project: { entity: 'Project', label: 'project' },
  'project-task': { entity: 'Task', label: 'project task' },
  'project-template': { entity: 'ProjectTemplate', label: 'project template' },
  flow: { entity: 'Flow', label: 'flow' },
  stage: { entity: 'FlowStage', label: 'stage' },
  offer: { entity: 'Offer', label: 'offer' },
  'offer-template': { entity: 'OfferTemplate', label: 'offer template' },
  'offer-type': { entity: 'OfferType', label: 'offer type' },
  // Calculator templates are offer types with rules (routes /calculator-templates/:id).
  'calculator-template': { entity: 'OfferType', label: 'calculator template' },
  product: { entity: 'OfferProduct', label: 'product' },
  'catalog-item': { entity: 'CatalogItem', label: 'catalog item' },
  'email-account': { entity: 'EmailAccount', label: 'mailbox' },
  'email-template': { entity: 'EmailTemplate', label: 'e-mail template' },
  'email-signature': { entity: 'EmailSignature', label: 'e-mail signature' },
  email: { entity: 'Email', label: 'e-mail' },
  'sms-template': { entity: 'SmsTemplate', label: 'SMS template' },
  sequence: { entity: 'Sequence', label: 'sequence' },
  automation: { entity: 'Automation', label: 'automation' },
  list: { entity: 'List', label: 'list' },
  'custom-object': { entity: 'CustomObject', label: 'custom object', alternateKey: 'slug' },
  'custom-object-record': { entity: 'CustomObjectRecord', label: 'custom object record' },
  'custom-field': { entity: 'CustomFieldDefinition', label: 'custom field' },
  agent: { entity: 'Agent', label: 'agent' },
  'booking-config': { entity: 'BookingConfig', label: 'booking config' },
  booking: { entity: 'Booking', label: 'booking' },
  contract: { entity: 'Contract', label: 'contract' },
  'support-ticket': { entity: 'SupportTicket', label: 'support ticket' },
  note: { entity: 'Note', label: 'note' },
  'support-flow': { entity: 'SupportFlow', label: 'support flow' },
  task: { entity: 'Task', label: 'task' },
  file: { entity: 'StoredFile', label: 'file' },
  folder: { entity: 'Folder', label: 'folder' },
  'filter-preset': { entity: 'FilterPreset', label: 'filter preset' },
  'dashboard-layout': { entity: 'DashboardLayout', label: 'dashboard layout' },
  'webhook-subscription': { entity: 'WebhookSubscription', label: 'webhook subscription' },
  // Path resources of routes whose bodies carry references (checked first: another workspace's record is 404).
  activity: { entity: 'Activity', label: 'activity' },
  call: { entity: 'Call', label: 'call' },
  event: { entity: 'CalendarEvent', label: 'calendar event' },
  'clip-card': { entity: 'ClipCard', label: 'clip card' },
  'project-comment': { entity: 'ProjectComment', label: 'project comment' },
  sms: { entity: 'SmsMessage', label: 'SMS' },
  'sms-scheduled': { entity: 'ScheduledSms', label: 'scheduled SMS' },
  'email-bulk': { entity: 'EmailBulk', label: 'bulk e-mail' },
  'automation-execution': { entity: 'AutomationExecution', label: 'automation execution' },
  'webhook-delivery': { entity: 'WebhookDelivery', label: 'webhook delivery' },
  'lead-scoring-rule': { entity: 'LeadScoringRule', label: 'lead scoring rule' },
  'lead-routing-rule': { entity: 'LeadRoutingRule', label: 'lead routing rule' },
} as const satisfies Record<string, RefKindSpec>;

export type RefKind = keyof typeof REF_KINDS;
export const refKindSpec = (kind: RefKind): RefKindSpec => REF_KINDS[kind];
