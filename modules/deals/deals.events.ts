import { z } from 'zod';
import { defineEvents, recordEvents, recordView } from '../../platform/outbox/define-events';

/** A stage as flows list it: `id` (not `_id`), title, order, type, probability. */
const flowStage = z.object({ flowId: z.string(), stage: z.looseObject({ id: z.string() }) });

/** Deal events (status won/lost as `deal_<status>`), and the flows and stages deals move through. */
export const dealEvents = defineEvents({
  ...recordEvents('deal', z.object({ deal: recordView })),
  deal_stage_changed: z.object({
    deal: recordView,
    fromStageId: z.string().nullable(),
    toStageId: z.string(),
    flowId: z.string().nullish(),
    fromFlowId: z.string().nullable(),
  }),
  deal_won: z.object({ deal: recordView }),
  deal_lost: z.object({ deal: recordView }),
  ...recordEvents('flow', z.object({ flow: recordView })),
  ...recordEvents('flow_stage', flowStage),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof dealEvents> {}
}
