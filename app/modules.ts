/**
 * Every feature module, in one list (docs/modules.md). The route table, the workflow-kind registry, the worker's
 * activities and the outbox subscribers derive from it; test/unit/modules.test.ts fails when a feature is
 * half-registered (a route factory, resource, workflow kind, activity or subscriber no module names, or one named
 * twice). Adding a feature = its `<feature>.module.ts` plus one line here.
 *
 * Order matters: routes are mounted (and documented) in this order, module by module, so a literal path of one
 * module must come before a parameter path of another that would match it; subscribers register in this order.
 * A composition file: the module files reach api/, activities/ and search/ (routers and activity files are required
 * on first use), so the core (domain services, manifests, config) never imports it.
 */
import { workspacesModule } from '../modules/workspaces/workspaces.module';
import { companiesModule } from '../modules/companies/companies.module';
import { peopleModule } from '../modules/people/people.module';
import { leadsModule } from '../modules/leads/leads.module';
import { customFieldsModule } from '../modules/custom-fields/custom-fields.module';
import { tagsModule } from '../modules/tags/tags.module';
import { listsModule } from '../modules/lists/lists.module';
import { presetsModule } from '../modules/presets/presets.module';
import { usersModule } from '../modules/users/users.module';
import { dealsModule } from '../modules/deals/deals.module';
import { inboundModule } from '../modules/inbound/inbound.module';
import { importsModule } from '../modules/imports/imports.module';
import { exportsModule } from '../modules/exports/exports.module';
import { searchModule } from '../search/search.module';
import { timelineModule } from '../modules/timeline/timeline.module';
import { tasksModule } from '../modules/tasks/tasks.module';
import { notesModule } from '../modules/notes/notes.module';
import { callsModule } from '../modules/calls/calls.module';
import { calendarModule } from '../modules/calendar/calendar.module';
import { crmConnectModule } from '../modules/crm-connect/crm-connect.module';
import { imagesModule } from '../modules/images/images.module';
import { automationsModule } from '../modules/automations/automations.module';
import { sequencesModule } from '../modules/sequences/sequences.module';
import { sequenceEnroller } from '../modules/sequences';
import { companyPeople } from '../modules/people';
import { companyDeals, personDeals } from '../modules/deals';
import { emailModule } from '../modules/email/email.module';
import { messagingModule } from '../modules/messaging/messaging.module';
import { reportsModule } from '../modules/reports/reports.module';
import { agentsModule } from '../modules/agents/agents.module';
import { metricsModule } from '../modules/metrics/metrics.module';
import { customObjectsModule } from '../modules/custom-objects/custom-objects.module';
import { webhooksModule } from '../modules/webhooks/webhooks.module';
import { outboxModule } from '../modules/outbox/outbox.module';
import { projectsModule } from '../modules/projects/projects.module';
import { offersModule } from '../modules/offers/offers.module';
import { pricingModule } from '../modules/pricing/pricing.module';
import { bookingsModule } from '../modules/bookings/bookings.module';
import { supportModule } from '../modules/support/support.module';
import { filesModule } from '../modules/files/files.module';
import { lookupsModule } from '../modules/lookups/lookups.module';
import { extensionModule } from '../modules/extension/extension.module';
import { contractsModule } from '../modules/contracts/contracts.module';
import type { WorkflowKind } from '../platform/workflow-kinds';

// companies, people and automations are given what they use of modules that build on them (the people and deals of
// a company, a person's deals, the sequence enrollment of add_to_sequence): those import them, not the reverse.
export const MODULES = [
  workspacesModule,
  companiesModule({ people: companyPeople, deals: companyDeals }),
  peopleModule({ deals: personDeals }),
  leadsModule,
  customFieldsModule,
  tagsModule,
  listsModule,
  presetsModule,
  usersModule,
  dealsModule,
  inboundModule,
  importsModule,
  exportsModule,
  searchModule,
  timelineModule,
  tasksModule,
  notesModule,
  callsModule,
  calendarModule,
  crmConnectModule,
  imagesModule,
  automationsModule(sequenceEnroller),
  sequencesModule,
  emailModule,
  messagingModule,
  reportsModule,
  agentsModule,
  metricsModule,
  customObjectsModule,
  webhooksModule,
  outboxModule,
  projectsModule,
  offersModule,
  pricingModule,
  bookingsModule,
  supportModule,
  filesModule,
  lookupsModule,
  extensionModule,
  contractsModule,
] as const;

export type ModuleName = (typeof MODULES)[number]['name'];

/** Every workflow kind the worker runs: the modules' `workflows`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const WORKFLOW_KINDS: readonly WorkflowKind<any>[] = MODULES.flatMap(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  (m): readonly WorkflowKind<any>[] => m.workflows,
);
