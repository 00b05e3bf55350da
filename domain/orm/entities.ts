import { Agent } from '../agents/agent.entity';
import { MetricSeries } from '../metrics/metric-series.entity';
import { Automation, AutomationExecution, AutomationStep } from '../automations/automation.entity';
import { AutomationLookupSnapshot } from '../automations/engine/lookup-snapshot.entity';
import { CustomFieldDefinition } from '../custom-fields/custom-field-definition.entity';
import { IdempotencyKey } from '../idempotency/idempotency-key.entity';
import { Image } from '../images/image.entity';
import { ImportRun } from '../imports/import-run.entity';
import { List, ListItem } from '../lists/list.entity';
import { Email } from '../email/email.entity';
import { EmailAccount } from '../email/email-account.entity';
import { EmailSignature, EmailTemplate } from '../email/email-template.entity';
import { EmailBulk, EmailBulkRecipient } from '../email/email-bulk.entity';
import { OutboxEvent } from '../outbox/outbox-event.entity';
import { DashboardLayout } from '../presets/dashboard-layout.entity';
import { FilterPreset } from '../presets/filter-preset.entity';
import { Sequence, SequenceEnrollment, SequenceOptOut, SequenceStep } from '../sequences/sequence.entity';
import { ApiKey } from '../workspaces/api-key.entity';
import { RateLimitWindow } from '../workspaces/rate-limit-window.entity';
import { User } from '../workspaces/user.entity';
import { Workspace } from '../workspaces/workspace.entity';
import { WebhookDelivery, WebhookSubscription } from '../webhooks/webhook.entity';
import { CalculatorSubmission, OfferType } from '../pricing/offer-type.entity';
import { FileLink, Folder, IntegrationSync, StoredFile } from '../files/file.entity';
import { ExtensionContribution, ExtensionObservation } from '../extension/extension.entity';
import { RESOURCE_ENTITIES } from '../resources';

/**
 * Tenant entities that belong to no resource manifest (yet): settings, engines' mirrors, join rows.
 * The resource kinds' entities come from their manifests (domain/resources.ts).
 */
const supportingTenantEntities = [
  Automation,
  AutomationExecution,
  AutomationStep,
  AutomationLookupSnapshot,
  Sequence, SequenceEnrollment, SequenceStep, SequenceOptOut,
  EmailAccount, Email, EmailTemplate, EmailSignature,
  WebhookSubscription, WebhookDelivery,
  User, Image, CustomFieldDefinition, List, ListItem, FilterPreset, DashboardLayout, ImportRun,
  Agent, MetricSeries,
  OfferType, CalculatorSubmission,
  StoredFile, FileLink, Folder, IntegrationSync,
  ExtensionContribution, ExtensionObservation,
  EmailBulk, EmailBulkRecipient];

/** Rows of these entities belong to one workspace; the `tenant` filter guards every read of them. */
export const tenantEntities = [...(RESOURCE_ENTITIES as unknown as typeof supportingTenantEntities), ...supportingTenantEntities];

/** Global rows: looked up before a workspace is known (auth) or served across workspaces (outbox). */
export const globalEntities = [Workspace, ApiKey, OutboxEvent, RateLimitWindow, IdempotencyKey];

export const allEntities = [...globalEntities, ...tenantEntities];
