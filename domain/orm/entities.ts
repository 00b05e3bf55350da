import { Activity } from '../timeline/activity.entity';
import { Agent } from '../agents/agent.entity';
import { MetricSeries } from '../metrics/metric-series.entity';
import { CustomObject, CustomObjectField, CustomObjectRecord } from '../custom-objects/custom-object.entity';
import { CalendarEvent } from '../calendar/calendar-event.entity';
import { Call } from '../calls/call.entity';
import { Company } from '../companies/company.entity';
import { Automation, AutomationExecution, AutomationStep } from '../automations/automation.entity';
import { AutomationLookupSnapshot } from '../automations/engine/lookup-snapshot.entity';
import { CustomFieldDefinition } from '../custom-fields/custom-field-definition.entity';
import { Deal } from '../deals/deal.entity';
import { Flow, FlowStage } from '../deals/flow.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { Image } from '../images/image.entity';
import { ImportRun } from '../imports/import-run.entity';
import { Lead } from '../leads/lead.entity';
import { LeadRoutingRule } from '../leads/lead-routing-rule.entity';
import { LeadScoringRule } from '../leads/lead-scoring-rule.entity';
import { List, ListItem } from '../lists/list.entity';
import { OutboundMessage } from '../messaging/outbound-message.entity';
import { ScheduledSms, SmsMessage, SmsWorkspaceSettings, SmsTemplate } from '../messaging/sms-message.entity';
import { Email } from '../email/email.entity';
import { EmailAccount } from '../email/email-account.entity';
import { EmailSignature, EmailTemplate } from '../email/email-template.entity';
import { EmailBulk, EmailBulkRecipient } from '../email/email-bulk.entity';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { Note } from '../notes/note.entity';
import { CompanyPerson, Person } from '../people/person.entity';
import { DashboardLayout } from '../presets/dashboard-layout.entity';
import { FilterPreset } from '../presets/filter-preset.entity';
import { Sequence, SequenceEnrollment, SequenceOptOut, SequenceStep } from '../sequences/sequence.entity';
import { TaskFlow } from '../tasks/task-flow.entity';
import { Task } from '../tasks/task.entity';
import { ApiKey } from '../workspaces/api-key.entity';
import { RateLimitWindow } from '../workspaces/rate-limit-window.entity';
import { User } from '../workspaces/user.entity';
import { Workspace } from '../workspaces/workspace.entity';
import { WebhookDelivery, WebhookSubscription } from '../webhooks/webhook.entity';
import { ClipCard, Project, ProjectComment, TimeEntry } from '../projects/project.entity';
import { CatalogItem, Offer, OfferProduct, OfferSettings, OfferTemplate } from '../offers/offer.entity';
import { CalculatorSubmission, OfferType } from '../pricing/offer-type.entity';
import { Booking, BookingConfig } from '../bookings/booking.entity';
import { SupportFlow, SupportTicket, SupportTicketMessage, SupportTimeEntry } from '../support/support.entity';
import { ProjectTemplate } from '../projects/project-template.entity';
import { FileLink, Folder, IntegrationSync, StoredFile } from '../files/file.entity';
import { ExtensionContribution, ExtensionObservation } from '../extension/extension.entity';
import { Contract, ContractDocument, ContractSigner } from '../contracts/contract.entity';

/** Rows of these entities belong to one workspace; the `tenant` filter guards every read of them. */
export const tenantEntities = [
  Automation,
  AutomationExecution,
  AutomationStep,
  AutomationLookupSnapshot,
  OutboundMessage,
  Sequence, SequenceEnrollment, SequenceStep, SequenceOptOut,
  EmailAccount, Email, EmailTemplate, EmailSignature,
  SmsMessage, ScheduledSms, SmsTemplate, SmsWorkspaceSettings,
  WebhookSubscription, WebhookDelivery,
  User, Company, Person, CompanyPerson, Activity, Deal, Image, CustomFieldDefinition, Lead, LeadScoringRule, LeadRoutingRule, Flow, FlowStage, List, ListItem, FilterPreset, DashboardLayout, Task, TaskFlow, Note, Call, CalendarEvent, ImportRun,
  Agent, MetricSeries, CustomObject, CustomObjectField, CustomObjectRecord,
  Project, ProjectComment, TimeEntry, ClipCard,
  Offer, OfferSettings, OfferTemplate, OfferProduct, CatalogItem,
  OfferType, CalculatorSubmission,
  BookingConfig, Booking,
  SupportFlow, SupportTicket, SupportTicketMessage, SupportTimeEntry, ProjectTemplate,
  StoredFile, FileLink, Folder, IntegrationSync,
  ExtensionContribution, ExtensionObservation,
  EmailBulk, EmailBulkRecipient,
  Contract, ContractSigner, ContractDocument];

/** Global rows: looked up before a workspace is known (auth) or served across workspaces (outbox). */
export const globalEntities = [Workspace, ApiKey, OutboxEvent, RateLimitWindow, IdempotencyKey];

export const allEntities = [...globalEntities, ...tenantEntities];
