import { z } from 'zod';
import { defineEvents, fieldChanges, recordView } from '../../platform/outbox/define-events';

/** A stage as flows list it: `id` (not `_id`), title, order, type, probability. */
const flowStage = z.object({ flowId: z.string(), stage: z.looseObject({ id: z.string() }) });

/** Deal events (status won/lost as `deal_<status>`), and the flows and stages deals move through. */
export const dealEvents = defineEvents({
  deal_created: z.object({ deal: recordView }),
  deal_updated: z.object({ deal: recordView, changes: fieldChanges }),
  deal_deleted: z.object({ deal: recordView }),
  deal_stage_changed: z.object({
    deal: recordView,
    fromStageId: z.string().nullable(),
    toStageId: z.string(),
    flowId: z.string().nullish(),
    fromFlowId: z.string().nullable(),
  }),
  deal_won: z.object({ deal: recordView }),
  deal_lost: z.object({ deal: recordView }),
  flow_created: z.object({ flow: recordView }),
  flow_updated: z.object({ flow: recordView, changes: fieldChanges }),
  flow_deleted: z.object({ flow: recordView }),
  flow_stage_created: flowStage,
  flow_stage_updated: flowStage.extend({ changes: fieldChanges }),
  flow_stage_deleted: flowStage,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof dealEvents> {}
}
