import type { AppDeps } from '../app';
import type { RouteDef } from '../http/registry';
import { companiesRoutes } from './companies.router';
import { peopleRoutes } from './people.router';
import { leadsRoutes } from './leads.router';
import { leadScoringRoutes } from './lead-scoring.router';
import { leadRoutingRoutes } from './lead-routing.router';
import { customFieldsRoutes } from './custom-fields.router';
import { tagsRoutes } from './tags.router';
import { listsRoutes } from './lists.router';
import { filterPresetsRoutes } from './filter-presets.router';
import { dashboardLayoutsRoutes } from './dashboard-layouts.router';
import { usersRoutes } from './users.router';
import { dealsRoutes } from './deals.router';
import { flowsRoutes } from './flows.router';
import { inboundRoutes } from './inbound.router';
import { importRoutes } from './import.router';
import { exportRoutes } from './export.router';
import { timelineEntryRoutes } from './timeline.router';
import { tasksRoutes } from './tasks.router';
import { notesRoutes } from './notes.router';
import { callsRoutes } from './calls.router';
import { calendarEventsRoutes } from './calendar-events.router';
import { crmConnectRoutes } from './crm-connect.router';
import { imagesRoutes } from './images.router';
import { searchRoutes } from './search.router';
import { systemRoutes } from './system.router';
import { docsRoutes } from './docs.router';
import { automationsRoutes } from './automations.router';
import { automationRunsRoutes } from './automation-runs.router';
import { reportsRoutes } from './reports.router';
import { agentsRoutes } from './agents.router';
import { metricsRoutes } from './metrics.router';
import { customObjectsRoutes } from './custom-objects.router';
import { webhooksRoutes } from './webhooks.router';
import { outboxAdminRoutes } from './outbox-admin.router';
import { smsRoutes } from './sms.router';
import { smsTemplatesRoutes } from './sms-templates.router';
import { emailsRoutes } from './emails.router';
import { emailTemplatesRoutes } from './email-templates.router';
import { emailInboundRoutes } from './email-inbound.router';
import { emailTrackingRoutes } from './email-tracking.router';
import { sequencesRoutes } from './sequences.router';
import { projectsRoutes } from './projects.router';
import { clipCardsRoutes } from './clip-cards.router';
import { offersRoutes } from './offers.router';
import { offersPublicRoutes } from './offers-public.router';
import { offerCatalogRoutes } from './offer-catalog.router';
import { offerTypesRoutes } from './offer-types.router';
import { calculatorsRoutes } from './calculators.router';
import { bookingsRoutes } from './bookings.router';
import { publicBookingsRoutes } from './public-bookings.router';
import { supportRoutes } from './support.router';
import { projectTemplatesRoutes } from './project-templates.router';
import { filesRoutes } from './files.router';
import { integrationsRoutes } from './integrations.router';
import { lookupsRoutes } from './lookups.router';
import { extensionRoutes } from './extension.router';
import { emailBulkRoutes } from './email-bulk.router';
import { contractsRoutes } from './contracts.router';
import { contractSigningRoutes } from './contract-signing.router';
import { extensionCapturesRoutes } from './extension-captures.router';

/** Every route of the API, in one list: mounted by the app, walked by docs and guard tests. */
export function allRoutes(deps: AppDeps): RouteDef[] {
  const factories = [
    systemRoutes,
    companiesRoutes,
    peopleRoutes,
    leadsRoutes,
    leadScoringRoutes,
    leadRoutingRoutes,
    customFieldsRoutes,
    tagsRoutes,
    listsRoutes,
    filterPresetsRoutes,
    dashboardLayoutsRoutes,
    usersRoutes,
    dealsRoutes,
    flowsRoutes,
    inboundRoutes,
    importRoutes,
    exportRoutes,
    searchRoutes,
    timelineEntryRoutes,
    tasksRoutes,
    notesRoutes,
    callsRoutes,
    calendarEventsRoutes,
    crmConnectRoutes,
    imagesRoutes,
    automationsRoutes,
    automationRunsRoutes,
    sequencesRoutes,
    emailsRoutes,
    emailTemplatesRoutes,
    emailInboundRoutes,
    emailTrackingRoutes,
    smsRoutes,
    smsTemplatesRoutes,
    reportsRoutes,
    agentsRoutes,
    metricsRoutes,
    customObjectsRoutes,
    webhooksRoutes,
    outboxAdminRoutes,
    projectsRoutes,
    clipCardsRoutes,
    offersRoutes,
    offersPublicRoutes,
    offerCatalogRoutes,
    offerTypesRoutes,
    calculatorsRoutes,
    bookingsRoutes,
    publicBookingsRoutes,
    supportRoutes,
    projectTemplatesRoutes,
    filesRoutes,
    integrationsRoutes,
    lookupsRoutes,
    extensionRoutes,
    emailBulkRoutes,
    contractsRoutes,
    contractSigningRoutes,
    extensionCapturesRoutes,
  ];
  const routes: RouteDef[] = [...factories, docsRoutes(() => routes)].flatMap((factory) => factory(deps));
  return routes;
}
