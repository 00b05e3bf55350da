import { z } from 'zod';
import { STAGE_TYPES } from './flow.entity';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { dateTimeView, idView } from '../../platform/shared/views';

export const MAX_STAGES_PER_FLOW = 50;

const stageFields = {
  title: requiredText(200),
  order: z
    .number({ message: 'must be a number' })
    .min(-1_000_000, 'must be at least -1000000')
    .max(1_000_000, 'must be at most 1000000')
    .describe('position in the pipeline (ascending); default: after the last stage'),
  type: z
    .enum(STAGE_TYPES, { message: 'must be one of open, won, lost' })
    .describe('won/lost stages close the deals that enter them'),
  probability: z
    .number({ message: 'must be a number' })
    .min(0, 'must be at least 0')
    .max(100, 'must be at most 100')
    .nullable(),
};

export const createStageBody = z
  .object({ title: stageFields.title })
  .extend(z.object(stageFields).omit({ title: true }).partial().shape);

export const updateStageBody = z
  .object({ id: objectId.describe('stage id') })
  .extend(z.object(stageFields).partial().shape);

export const stageIdInput = z.object({ id: objectId.describe('stage id (body or query)') });

export const createFlowBody = z.object({
  title: requiredText(200),
  description: clearableText(2000).optional(),
  isDefault: z
    .boolean({ message: 'must be true or false' })
    .optional()
    .describe('the default flow receives deals created without flowId'),
  stages: z.array(createStageBody).max(MAX_STAGES_PER_FLOW, `at most ${MAX_STAGES_PER_FLOW} stages`).optional(),
});

/** Stages are edited through /flows/:id/stages; PUT changes the flow's own fields. */
export const updateFlowBody = z
  .object({
    title: requiredText(200),
    description: clearableText(2000),
    isDefault: z.boolean({ message: 'must be true or false' }),
  })
  .partial();

/** A stage as the services take it (create body; title required). */
export type StageInput = z.infer<typeof createStageBody>;
/** A flow's own fields (stages are edited through /flows/:id/stages). */
export type FlowInput = z.infer<typeof updateFlowBody>;

/** A stage inside a flow view. */
export const stageView = z.object({
  id: idView.describe('stage id (deals point to it with stageId)'),
  title: z.string(),
  order: z.number().describe('position in the pipeline (ascending)'),
  type: z.enum(STAGE_TYPES).describe('won/lost stages close the deals that enter them'),
  probability: z.number().nullable().describe('0–100'),
});
export type StageView = z.infer<typeof stageView>;

/** A stage on its own (stage routes): the stage plus its flow. */
export const flowStageView = stageView.extend({ flowId: idView });
export type FlowStageView = z.infer<typeof flowStageView>;

export const flowView = z.object({
  _id: idView,
  title: z.string(),
  description: z.string().nullable(),
  isDefault: z.boolean().describe('the default flow receives deals created without flowId'),
  stages: z.array(stageView).describe('ordered by `order`'),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type FlowView = z.infer<typeof flowView>;
