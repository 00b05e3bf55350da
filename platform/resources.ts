/**
 * Every resource kind, declared once in its module's `<module>.resource.ts`. The lists that used
 * to restate kinds derive from this one: tenant entities (orm/entities.ts), record kinds
 * (shared/record-kinds.ts), export specs (modules/exports/export-specs.ts), the automation context loader
 * (automations/engine/context.ts) and lookup node (automations/engine/lookup.ts), and the search
 * registry's check (search/registry.ts). test/unit/resources.test.ts fails when a kind is
 * half-registered. Adding a kind = one manifest file + one line here + its name in its module's `resources`
 * (domain/<module>/<module>.module.ts). This list is read by the core at import time, so it cannot derive from
 * MODULES (the module files import routers, which import the core): test/unit/modules.test.ts keeps the two equal.
 */
import type { ResourceEntity, ResourceManifest } from './shared/resource';
import { companyResource } from '../modules/companies/companies.resource';
import { personResource } from '../modules/people/people.resource';
import { leadResource } from '../modules/leads/leads.resource';
import { dealResource } from '../modules/deals/deals.resource';
import { activityResource } from '../modules/timeline/activities.resource';
import { taskResource } from '../modules/tasks/tasks.resource';
import { noteResource } from '../modules/notes/notes.resource';
import { callResource } from '../modules/calls/calls.resource';
import { eventResource } from '../modules/calendar/calendar.resource';
import { smsResource } from '../modules/messaging/sms.resource';
import { customObjectRecordResource } from '../modules/custom-objects/custom-objects.resource';
import { projectResource } from '../modules/projects/projects.resource';
import { offerResource } from '../modules/offers/offers.resource';
import { contractResource } from '../modules/contracts/contracts.resource';
import { bookingResource } from '../modules/bookings/bookings.resource';
import { supportTicketResource } from '../modules/support/support.resource';
import { agentResource } from '../modules/agents/agents.resource';
import { automationResource } from '../modules/automations/automations.resource';
import { sequenceResource } from '../modules/sequences/sequences.resource';
import { emailResource } from '../modules/email/email.resource';
import { webhookSubscriptionResource } from '../modules/webhooks/webhooks.resource';
import { userResource } from '../modules/workspaces/workspaces.resource';
import { customFieldResource } from '../modules/custom-fields/custom-fields.resource';
import { listResource } from '../modules/lists/lists.resource';
import { dashboardLayoutResource, filterPresetResource } from '../modules/presets/presets.resource';
import { offerTypeResource } from '../modules/pricing/pricing.resource';
import { fileResource } from '../modules/files/files.resource';

// One line per kind (add lines, do not reorder: record kinds and export specs keep this order).
export const RESOURCES: readonly ResourceManifest[] = [
  companyResource,
  personResource,
  leadResource,
  dealResource,
  activityResource,
  taskResource,
  noteResource,
  callResource,
  eventResource,
  smsResource,
  customObjectRecordResource,
  projectResource,
  offerResource,
  contractResource,
  bookingResource,
  supportTicketResource,
  agentResource,
  automationResource,
  sequenceResource,
  emailResource,
  webhookSubscriptionResource,
  userResource,
  customFieldResource,
  listResource,
  filterPresetResource,
  dashboardLayoutResource,
  offerTypeResource,
  fileResource,
];

/** The manifest of a kind, or undefined. */
export const resourceOf = (kind: string): ResourceManifest | undefined => RESOURCES.find((r) => r.kind === kind);

/** The tenant entities the manifests declare (main entity first, then owned ones). */
export const RESOURCE_ENTITIES: readonly ResourceEntity[] = RESOURCES.flatMap((r) => [
  r.entity,
  ...(r.ownedEntities ?? []),
]);
